//! Sizing the buffer rotation that keeps L2 cold: between two uses of one buffer set, at
//! least `factor` x L2 of other sets' data has been touched, so none of it is still cached.

/// Default multiple of L2 that must separate two uses of the same set.
pub const DEFAULT_L2_FACTOR: f64 = 3.0;
/// Upper bound on the number of sets (tiny problems would otherwise need thousands).
pub const MAX_SETS: usize = 512;

/// Buffer sets needed for cold-L2 rotation: ceil(factor x L2 / set) + 1, at least 2.
pub fn cold_sets(set_bytes: u64, l2_bytes: u64, factor: f64) -> usize {
    let set = set_bytes.max(1) as f64;
    // f64 -> usize saturates, so huge ratios land on MAX_SETS rather than wrapping.
    let needed = ((factor * l2_bytes as f64 / set).ceil() as usize).saturating_add(1);
    needed.clamp(2, MAX_SETS)
}

/// Whether `sets` sets really separate reuses by factor x L2 (false when MAX_SETS capped it).
pub fn is_fully_cold(sets: usize, set_bytes: u64, l2_bytes: u64, factor: f64) -> bool {
    (sets.saturating_sub(1)) as f64 * set_bytes as f64 >= factor * l2_bytes as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn h200_cases_by_hand() {
        let l2 = 60 * MIB;
        // decode GEMV weights 4096x4096 fp16 = 32 MiB (+ tiny x, y): 180/32 = 5.6 -> 6 + 1
        assert_eq!(cold_sets(32 * MIB, l2, 3.0), 7);
        // a 1 GiB copy moves 2 GiB per set: one other set already covers 3 x L2
        assert_eq!(cold_sets(2048 * MIB, l2, 3.0), 2);
        // exactly 3 x L2 per set -> 1 + 1
        assert_eq!(cold_sets(180 * MIB, l2, 3.0), 2);
        // tiny problems hit the cap
        assert_eq!(cold_sets(1024, l2, 3.0), MAX_SETS);
        assert!(!is_fully_cold(MAX_SETS, 1024, l2, 3.0));
        assert!(is_fully_cold(7, 32 * MIB, l2, 3.0));
    }

    #[test]
    fn more_sets_for_smaller_sets() {
        let l2 = 50 * MIB;
        let mut last = usize::MAX;
        for set in [MIB, 4 * MIB, 16 * MIB, 64 * MIB, 256 * MIB] {
            let n = cold_sets(set, l2, 3.0);
            assert!(n <= last);
            last = n;
        }
    }
}
