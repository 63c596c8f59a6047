//! Splitting a run across CI machines: `slice:K/N` takes every N-th
//! scenario starting with the K-th (1-based), in discovery order, so slices
//! are disjoint, cover everything, and stay balanced as files are added.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Partition {
    /// 1-based slice number.
    pub index: usize,
    pub count: usize,
}

impl Partition {
    pub fn contains(&self, position: usize) -> bool {
        position % self.count == self.index - 1
    }
}

impl FromStr for Partition {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("expected `slice:K/N` with 1 <= K <= N, found `{s}`");
        let spec = s.strip_prefix("slice:").ok_or_else(bad)?;
        let (k, n) = spec.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Partition { index, count })
    }
}

impl fmt::Display for Partition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slice:{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_are_disjoint_and_cover_everything() {
        let parts: Vec<Partition> = (1..=3)
            .map(|k| format!("slice:{k}/3").parse().unwrap())
            .collect();
        for pos in 0..10 {
            assert_eq!(parts.iter().filter(|p| p.contains(pos)).count(), 1);
        }
        assert!(parts[0].contains(0) && parts[0].contains(3));
    }

    #[test]
    fn bad_specs_are_refused() {
        for bad in ["slice:0/3", "slice:4/3", "3/3", "slice:a/3", "slice:1"] {
            assert!(bad.parse::<Partition>().is_err(), "{bad}");
        }
    }
}
