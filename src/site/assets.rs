//! The files every site carries besides its pages and the theme's: the vendored ECharts
//! build with its license and notice.

/// The vendored ECharts build every site carries.
pub const ECHARTS: &[u8] = include_bytes!("vendor/echarts/echarts.min.js");
/// Its sha256, as recorded in `vendor/echarts/VENDOR.md`.
pub const ECHARTS_SHA256: &str = "b66b25aeb4df84e33199dc21694014d336d222cbd9deb0e5a7c14bd6aa0d0fd0";
pub const ECHARTS_LICENSE: &[u8] = include_bytes!("vendor/echarts/LICENSE");
pub const ECHARTS_NOTICE: &[u8] = include_bytes!("vendor/echarts/NOTICE");

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn the_vendored_echarts_is_the_recorded_file() {
        let digest: String = Sha256::digest(ECHARTS)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, ECHARTS_SHA256);
        let vendor = include_str!("vendor/echarts/VENDOR.md");
        assert!(vendor.contains(ECHARTS_SHA256));
    }
}
