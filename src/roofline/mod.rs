//! The roofline model: one work model per kernel, the ceilings, and where a measurement sits.

pub mod ceilings;
pub mod placement;
pub mod probe;
pub mod work;

pub use ceilings::MeasuredCeilings;
pub use placement::{place, Bound, Placement, Roofs};
pub use work::{ComputeUnit, Work};
