//! CPU tests of families added through the registry alone: that they reach the places the
//! registry feeds (the sweeps and the check), without a GPU.

use roofline_lab::registry;
use roofline_lab::sweeps::{plan, Sweep, SweepOpts};

#[test]
fn add_rmsnorm_joins_the_elementwise_sweep_at_its_target_shapes() {
    let p = plan(Sweep::Elementwise, &SweepOpts::default());
    let ids: Vec<String> = p.iter().map(|x| x.case.id().describe()).collect();
    for target in ["32768x4096", "4096x4096"] {
        assert!(
            ids.iter()
                .any(|d| d.starts_with("add_rmsnorm ours") && d.ends_with(target)),
            "no add_rmsnorm {target} in {ids:?}"
        );
    }
}

#[test]
fn add_rmsnorm_is_checked_at_awkward_hidden_sizes() {
    let f = registry::find("add_rmsnorm").expect("registered");
    let cases = roofline_lab::check::cases(f, 0, 1);
    let labels: Vec<String> = cases.iter().map(|c| c.id().shape.label()).collect();
    // Sizes off the 16-byte vector (7, 1030, 4099, 16385) and the usual hidden sizes.
    for h in ["x7", "x768", "x1030", "x4099", "x16384", "x16385"] {
        assert!(
            labels.iter().any(|l| l.ends_with(h)),
            "no hidden {h}: {labels:?}"
        );
    }
}
