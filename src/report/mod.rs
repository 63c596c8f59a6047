//! Reporters turn typed results into text. They compute nothing: every
//! number they print comes from the runner's results and summary.

mod board;
pub mod formats;
mod human;
mod model;
pub mod sanitize;

pub use board::draw_board;
pub use human::HumanReporter;
pub use model::{REPORT_VERSION, Report, ScenarioRecord, Status, Totals};
