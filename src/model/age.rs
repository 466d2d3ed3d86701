//! Ages as people type them: `30s`, `45m`, `12h`, `30d`, `2w` (a bare
//! number is seconds).

/// Seconds in `raw`, or why it is not an age.
pub fn parse(raw: &str) -> Result<u64, String> {
    let raw = raw.trim();
    let (digits, unit) = raw.split_at(raw.find(|c: char| !c.is_ascii_digit()).unwrap_or(raw.len()));
    let bad = || format!("'{raw}' is not an age like 30m, 12h, 30d or 2w");
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let factor = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(bad()),
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("'{raw}' is too long an age"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn ages_parse_and_refuse() {
        assert_eq!(super::parse("1s"), Ok(1));
        assert_eq!(super::parse("90"), Ok(90));
        assert_eq!(super::parse("30d"), Ok(30 * 86_400));
        assert_eq!(super::parse(" 2w "), Ok(14 * 86_400));
        for bad in ["", "d", "3y", "-1d", "1.5h", "99999999999999999999d"] {
            assert!(super::parse(bad).is_err(), "{bad}");
        }
    }
}
