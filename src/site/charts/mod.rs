//! ECharts options built with charming. Each function returns the option as JSON, escaped
//! for embedding in a `<script type="application/json">` element.

mod heatmap;
mod lines;
mod scatter;
mod shared;

pub use heatmap::{heatmap, heatmap_tops};
pub use lines::{LineSeries, Mark, bars, level_links, lines_by_category, lines_by_load};
pub use scatter::{LinkedPoint, ScatterGroup, frontier, scatter};
