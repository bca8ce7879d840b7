//! `roofline ceilings`: the measured ceilings beside the datasheet, and the ridge points.

use crate::datasheet;
use crate::gpu::Gpu;
use crate::roofline::probe;
use anyhow::Result;
use clap::Args;
use comfy_table::Table;

#[derive(Args, Debug)]
pub struct CeilingsArgs {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
    /// Re-measure even when cached ceilings exist for this GPU
    #[arg(long)]
    pub refresh: bool,
}

pub fn run(device: usize, a: &CeilingsArgs) -> Result<()> {
    let gpu = Gpu::open(device)?;
    let c = probe::load_or_measure(&gpu, a.refresh, false)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
        return Ok(());
    }
    let ds = datasheet::for_device(gpu.props());
    let datasheet_of = |name: &str| -> Option<f64> {
        match name {
            "hbm_copy" | "hbm_read" => Some(ds.mem_bandwidth_gbs),
            "tensor_cublas_fp16" | "tensor_wmma" => Some(ds.fp16_tensor_tflops),
            "tensor_cublas_bf16" => Some(ds.bf16_tensor_tflops),
            "fp32_ffma" => Some(ds.fp32_tflops),
            _ => None,
        }
    };
    let mut t = Table::new();
    t.set_header(vec![
        "ceiling",
        "measured",
        "datasheet",
        "% of datasheet",
        "how",
    ]);
    for ceil in c.to_ceilings(&ds).iter().filter(|x| !x.is_datasheet()) {
        let how = c
            .method
            .iter()
            .find(|(k, _)| *k == ceil.name)
            .map_or("", |(_, v)| v.as_str());
        let (sheet, pct) = match datasheet_of(&ceil.name) {
            Some(d) => (
                format!("{d:.1} {}", ceil.unit),
                format!("{:.0}%", 100.0 * ceil.value / d),
            ),
            None => ("-".into(), "-".into()),
        };
        t.add_row(vec![
            ceil.name.clone(),
            format!("{:.2} {}", ceil.value, ceil.unit),
            sheet,
            pct,
            how.to_string(),
        ]);
    }
    println!(
        "{} — measured {} (driver {}, CUDA {})",
        c.device, c.date, c.driver, c.cuda_driver
    );
    println!("{t}");
    let mut r = Table::new();
    r.set_header(vec!["ridge point (compute / memory)", "FLOP/byte"]);
    for (name, v) in c.ridge_points() {
        r.add_row(vec![name, format!("{v:.1}")]);
    }
    println!("{r}");
    println!(
        "Cached in {} (--refresh re-measures).",
        probe::cache_path(&gpu)?.display()
    );
    Ok(())
}
