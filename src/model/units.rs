//! Quantities for people.

/// A size for a person, in git's binary units: `512 bytes`, `10 MiB`,
/// `1.5 GiB` (one decimal when it is not whole).
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} byte{}", if bytes == 1 { "" } else { "s" });
    }
    let mut unit = 0;
    let mut scale = 1024u64;
    while unit + 1 < UNITS.len() && bytes >= scale * 1024 {
        scale *= 1024;
        unit += 1;
    }
    // Tenths, rounded down, so a size never reads as more than it is.
    let tenths = u128::from(bytes) * 10 / u128::from(scale);
    if tenths % 10 == 0 {
        format!("{} {}", tenths / 10, UNITS[unit])
    } else {
        format!("{}.{} {}", tenths / 10, tenths % 10, UNITS[unit])
    }
}
