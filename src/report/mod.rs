//! Reporters turn typed results into text. They compute nothing: every
//! number they print comes from the runner's results and summary.

mod board;
mod human;

pub use board::draw_board;
pub use human::HumanReporter;
