//! Reading a family's variant list from its C launcher functions.

use std::ffi::{c_char, CStr};

/// (number, description) of every variant a family reports.
pub fn list(
    count: unsafe extern "C" fn() -> i32,
    name: unsafe extern "C" fn(i32) -> *const c_char,
) -> Vec<(u32, String)> {
    // SAFETY: the count/name functions take no pointers and return static strings or NULL.
    let n = unsafe { count() };
    (1..=n)
        .filter_map(|v| {
            let p = unsafe { name(v) };
            (!p.is_null()).then(|| {
                // SAFETY: non-null pointers from *_variant_name are static C strings.
                (
                    v as u32,
                    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
                )
            })
        })
        .collect()
}

/// (number, "name: summary") of every variant of a family whose table names its variants
/// (the GEMM family: a short name and a one-line summary per variant).
pub fn list_named(
    count: unsafe extern "C" fn() -> i32,
    name: unsafe extern "C" fn(i32) -> *const c_char,
    summary: unsafe extern "C" fn(i32) -> *const c_char,
) -> Vec<(u32, String)> {
    let names = list(count, name);
    let summaries = list(count, summary);
    names
        .into_iter()
        .zip(summaries)
        .map(|((v, n), (_, s))| (v, format!("{n}: {s}")))
        .collect()
}

/// The HGEMM variant whose kernels an epilogue family's variant `v` runs (its plain twin), from
/// the family's `*_plain_variant` C function; HGEMM's best for a number out of range.
pub fn plain_twin(twin: unsafe extern "C" fn(i32) -> i32, v: u32) -> u32 {
    // SAFETY: takes and returns an int; 0 for a number out of range.
    let p = unsafe { twin(v as i32) };
    u32::try_from(p)
        .ok()
        .filter(|&p| p > 0)
        .unwrap_or_else(super::gemm::best)
}

/// The family's preferred variant when it exists, else its highest.
pub fn best_of(available: &[(u32, String)], preferred: u32) -> u32 {
    if available.iter().any(|(v, _)| *v == preferred) {
        preferred
    } else {
        available.iter().map(|(v, _)| *v).max().unwrap_or(1)
    }
}

/// Parses "v3" or "3", a variant's name where its family's table names them ("pipelined"), or
/// "best" (the family's fastest measured variant) or "latest" (the highest number), against a
/// list of variants.
pub fn parse(s: &str, available: &[(u32, String)], best: u32, family: &str) -> Result<u32, String> {
    let max = available.iter().map(|(v, _)| *v).max().unwrap_or(0);
    if s == "best" {
        return Ok(best_of(available, best));
    }
    if s == "latest" {
        return Ok(max);
    }
    // A named variant ("pipelined") is found by the name its summary starts with.
    if let Some((v, _)) = available
        .iter()
        .find(|(_, d)| d.split_once(':').is_some_and(|(n, _)| n == s))
    {
        return Ok(*v);
    }
    let num = s.trim_start_matches(['v', 'V']);
    match num.parse::<u32>() {
        Ok(v) if available.iter().any(|(x, _)| *x == v) => Ok(v),
        _ => Err(format!(
            "--variant: unknown {family} variant '{s}': choose one of {} or 'best' / 'latest'",
            available
                .iter()
                .map(|(v, _)| format!("v{v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avail() -> Vec<(u32, String)> {
        vec![
            (1, "plain".into()),
            (2, "tiled".into()),
            (3, "pipelined".into()),
        ]
    }

    #[test]
    fn parses_names_numbers_and_best() {
        assert_eq!(parse("v2", &avail(), 2, "hgemm"), Ok(2));
        assert_eq!(parse("3", &avail(), 2, "hgemm"), Ok(3));
        assert_eq!(parse("best", &avail(), 2, "hgemm"), Ok(2));
        assert_eq!(parse("latest", &avail(), 2, "hgemm"), Ok(3));
        // a preferred variant that does not exist falls back to the highest
        assert_eq!(parse("best", &avail(), 9, "hgemm"), Ok(3));
        let e = parse("v9", &avail(), 2, "hgemm").unwrap_err();
        assert!(e.contains("v1, v2, v3"), "{e}");
        assert!(parse("fast", &avail(), 2, "hgemm").is_err());
    }

    #[test]
    fn parses_the_names_of_a_named_table() {
        let named = vec![
            (1, "naive: one warp per tile".to_string()),
            (2, "smem_tiles: a block tile".to_string()),
        ];
        assert_eq!(parse("smem_tiles", &named, 2, "hgemm"), Ok(2));
        assert_eq!(parse("v1", &named, 2, "hgemm"), Ok(1));
        assert!(parse("tiles", &named, 2, "hgemm").is_err());
    }
}
