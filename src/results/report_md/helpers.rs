//! Number formatting and record picking shared by the report's sections.

use crate::results::export::{fmt_num, fmt_pct};
use crate::results::schema::{Ceiling, Record};

pub(super) fn pct(a: f64, b: f64) -> String {
    fmt_pct(100.0 * a / b)
}

pub(super) fn gbs(v: f64) -> String {
    format!("{} GB/s", fmt_num(v))
}

pub(super) fn tf(v: f64) -> String {
    format!("{} TFLOP/s", fmt_num(v))
}

/// A ceiling's value as recorded, to at most four significant digits.
pub(super) fn value_with_unit(c: &Ceiling) -> String {
    let v = if c.value.is_finite() && c.value != 0.0 {
        let digits = (4 - 1 - c.value.abs().log10().floor() as i32).max(0) as usize;
        format!("{:.*}", digits, c.value)
            .parse::<f64>()
            .map_or_else(|_| fmt_num(c.value), |x| format!("{x}"))
    } else {
        fmt_num(c.value)
    };
    format!("{v} {}", c.unit)
}

/// "1 record", "3 records".
pub(super) fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

pub(super) fn variant_name(r: &Record) -> String {
    if r.impl_ == "ours" && !r.variant.is_empty() {
        format!("ours {}", r.variant)
    } else {
        r.impl_label()
    }
}

/// The most common value of `f` (ties: first seen).
pub(super) fn dominant<T: PartialEq + Clone>(
    recs: &[&Record],
    f: impl Fn(&Record) -> T,
) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for r in recs {
        let v = f(r);
        match counts.iter_mut().find(|(x, _)| *x == v) {
            Some(c) => c.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    let max = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == max).map(|(v, _)| v)
}

pub(super) fn max_by<'a>(
    it: impl Iterator<Item = &'a Record>,
    f: impl Fn(&Record) -> f64,
) -> Option<&'a Record> {
    it.filter(|r| f(r).is_finite())
        .max_by(|a, b| f(a).total_cmp(&f(b)))
}
