//! Clocks, temperature, power and throttle reasons through NVML, read around measurements.
//! NVML is optional: without it measurements carry no clock data.

use crate::results::schema::Clocks;
use nvml_wrapper::bitmasks::device::ThrottleReasons;
use nvml_wrapper::enum_wrappers::device::{Clock, TemperatureSensor};
use nvml_wrapper::Nvml;
use std::sync::OnceLock;

fn nvml() -> Option<&'static Nvml> {
    static NVML: OnceLock<Option<Nvml>> = OnceLock::new();
    NVML.get_or_init(|| Nvml::init().ok()).as_ref()
}

/// The driver release, e.g. "580.159.04".
pub fn driver_release() -> Option<String> {
    nvml()?.sys_driver_version().ok()
}

/// One reading of a device's state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockSample {
    pub sm_mhz: u32,
    pub mem_mhz: u32,
    pub temp_c: u32,
    pub power_w: f64,
    pub reasons: u64,
}

/// Reads NVML for the device with this CUDA UUID (NVML and CUDA may number devices
/// differently, so match by UUID). The handle is looked up once: a reading is then two or
/// three cheap NVML calls, cheap enough to take between samples.
pub struct ClockReader {
    device: Option<nvml_wrapper::Device<'static>>,
}

/// The NVML form of a CUDA device UUID: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
fn nvml_uuid(cuda_uuid: [u8; 16]) -> String {
    let h: Vec<String> = cuda_uuid.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        h[0..4].concat(),
        h[4..6].concat(),
        h[6..8].concat(),
        h[8..10].concat(),
        h[10..16].concat()
    )
}

impl ClockReader {
    pub fn new(cuda_uuid: [u8; 16]) -> Self {
        let uuid = nvml_uuid(cuda_uuid);
        let device = nvml().and_then(|n| n.device_by_uuid(uuid.as_str()).ok());
        ClockReader { device }
    }

    /// The SM clock the GPU runs at when nothing holds it back (its maximum), if known.
    pub fn max_sm_mhz(&self) -> Option<u32> {
        self.device.as_ref()?.max_clock_info(Clock::SM).ok()
    }

    /// A full reading: the quick one plus memory clock, temperature and power.
    pub fn sample(&self) -> Option<ClockSample> {
        let dev = self.device.as_ref()?;
        Some(ClockSample {
            mem_mhz: dev.clock_info(Clock::Memory).unwrap_or(0),
            temp_c: dev.temperature(TemperatureSensor::Gpu).unwrap_or(0),
            power_w: dev
                .power_usage()
                .map(|mw| mw as f64 / 1000.0)
                .unwrap_or(0.0),
            ..self.quick_sample()?
        })
    }

    /// The cheap reading taken between samples: SM clock and slowdown reasons only.
    pub fn quick_sample(&self) -> Option<ClockSample> {
        let dev = self.device.as_ref()?;
        Some(ClockSample {
            sm_mhz: dev.clock_info(Clock::SM).ok()?,
            mem_mhz: 0,
            temp_c: 0,
            power_w: 0.0,
            reasons: dev
                .current_throttle_reasons()
                .map(|r| r.bits())
                .unwrap_or(0),
        })
    }
}

/// When a reading counts as unthrottled. nvbench keeps samples taken at 75% of the maximum
/// SM clock or more; on the H200 the power cap holds the clock anywhere from ~1450 to
/// ~1860 of 1980 MHz (73-94%), often without its flag set at the moment of the reading, so
/// 75% (or 90%) keeps capped samples: cuBLAS 8192^3 measured 10% slower than rested bursts
/// with a 90% rule. Uncapped, the H200 holds its maximum clock under any load. Here a
/// reading is clean when no slowdown reason is set (power cap, thermal, power brake) and
/// the SM clock is within 3% of its maximum (one or two 15 MHz steps of jitter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThrottleRule {
    pub max_sm_mhz: u32,
    pub min_clock_fraction: f64,
}

impl ThrottleRule {
    pub const MIN_CLOCK_FRACTION: f64 = 0.97;

    pub fn new(max_sm_mhz: u32) -> Self {
        ThrottleRule {
            max_sm_mhz,
            min_clock_fraction: Self::MIN_CLOCK_FRACTION,
        }
    }

    /// A slowdown is active (the GPU should rest before sampling on).
    pub fn capped(&self, s: &ClockSample) -> bool {
        !slowdown_names(s.reasons).is_empty()
    }

    pub fn clean(&self, s: &ClockSample) -> bool {
        !self.capped(s) && s.sm_mhz as f64 >= self.min_clock_fraction * self.max_sm_mhz as f64
    }
}

/// Names of the throttle reasons that slow a running kernel (idle and app-clock settings
/// are left out: they are not slowdowns).
pub fn slowdown_names(bits: u64) -> Vec<String> {
    let r = ThrottleReasons::from_bits_truncate(bits);
    let named = [
        (ThrottleReasons::SW_POWER_CAP, "sw_power_cap"),
        (ThrottleReasons::HW_SLOWDOWN, "hw_slowdown"),
        (ThrottleReasons::SW_THERMAL_SLOWDOWN, "sw_thermal"),
        (ThrottleReasons::HW_THERMAL_SLOWDOWN, "hw_thermal"),
        (ThrottleReasons::HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake"),
    ];
    named
        .iter()
        .filter(|(flag, _)| r.contains(*flag))
        .map(|(_, n)| n.to_string())
        .collect()
}

/// Folds the samples taken during one measurement into the record's Clocks.
pub fn summarize(samples: &[ClockSample]) -> Option<Clocks> {
    let first = samples.first()?;
    let mut throttle: Vec<String> = samples
        .iter()
        .flat_map(|s| slowdown_names(s.reasons))
        .collect();
    throttle.sort();
    throttle.dedup();
    Some(Clocks {
        sm_mhz_min: samples
            .iter()
            .map(|s| s.sm_mhz)
            .min()
            .unwrap_or(first.sm_mhz),
        sm_mhz_max: samples
            .iter()
            .map(|s| s.sm_mhz)
            .max()
            .unwrap_or(first.sm_mhz),
        mem_mhz: samples.iter().map(|s| s.mem_mhz).max().unwrap_or(0),
        temp_c: samples.iter().map(|s| s.temp_c).max().unwrap_or(0),
        power_w: samples.iter().map(|s| s.power_w).fold(0.0, f64::max),
        throttle,
    })
}

/// A warning when the SM clock moved more than 10% or a slowdown reason was set.
pub fn warning(c: &Clocks) -> Option<String> {
    let dropped = c.sm_mhz_max > 0 && (c.sm_mhz_min as f64) < 0.9 * c.sm_mhz_max as f64;
    if dropped || !c.throttle.is_empty() {
        Some(format!(
            "clocks moved during the measurement: SM {}-{} MHz{}",
            c.sm_mhz_min,
            c.sm_mhz_max,
            if c.throttle.is_empty() {
                String::new()
            } else {
                format!(", throttled: {}", c.throttle.join(", "))
            }
        ))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(sm: u32, reasons: u64) -> ClockSample {
        ClockSample {
            sm_mhz: sm,
            mem_mhz: 3201,
            temp_c: 40,
            power_w: 300.0,
            reasons,
        }
    }

    #[test]
    fn uuid_is_formatted_like_nvml() {
        let u = nvml_uuid([
            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
            0xcd, 0xef,
        ]);
        assert_eq!(u, "GPU-12345678-9abc-def0-0123-456789abcdef");
    }

    #[test]
    fn steady_clocks_give_no_warning() {
        let c = summarize(&[s(1980, 0), s(1980, 0)]).unwrap();
        assert_eq!((c.sm_mhz_min, c.sm_mhz_max), (1980, 1980));
        assert!(warning(&c).is_none());
    }

    #[test]
    fn a_drop_or_thermal_slowdown_warns() {
        let c = summarize(&[s(1980, 0), s(1500, 0)]).unwrap();
        assert!(warning(&c).unwrap().contains("1500-1980"));
        let thermal = ThrottleReasons::SW_THERMAL_SLOWDOWN.bits();
        let c = summarize(&[s(1980, thermal)]).unwrap();
        assert_eq!(c.throttle, vec!["sw_thermal".to_string()]);
        assert!(warning(&c).is_some());
        let idle = ThrottleReasons::GPU_IDLE.bits();
        assert!(summarize(&[s(1980, idle)]).unwrap().throttle.is_empty());
    }

    #[test]
    fn the_throttle_rule_keeps_boost_jitter_and_drops_capping() {
        let r = ThrottleRule::new(1980);
        let cap = ThrottleReasons::SW_POWER_CAP.bits();
        assert!(r.clean(&s(1980, 0)));
        assert!(r.clean(&s(1950, 0)), "boost jitter is clean");
        assert!(
            !r.clean(&s(1860, 0)),
            "a capped clock without the flag is not"
        );
        assert!(!r.clean(&s(1455, 0)), "the H200's capped clock is not");
        assert!(
            !r.clean(&s(1980, cap)),
            "a set power cap is not, whatever the clock"
        );
        assert!(r.capped(&s(1980, cap)) && !r.capped(&s(1455, 0)));
        let idle = ThrottleReasons::GPU_IDLE.bits();
        assert!(r.clean(&s(1980, idle)), "idle is no slowdown");
    }

    #[test]
    fn no_samples_no_clocks() {
        assert!(summarize(&[]).is_none());
    }
}
