//! Reporters turn typed results into text. They compute nothing: every
//! number they print comes from the runner's results and summary. Colour
//! is a value they are handed ([`paint::Palette`]), never a global.

mod board;
pub mod class;
pub mod classroom;
pub mod diagram;
mod fit;
pub mod formats;
pub mod html;
mod human;
mod model;
pub mod paint;
pub mod picture;
pub mod prairielearn;
pub mod sanitize;

pub use board::draw_board;
pub use class::{ClassIdentity, ClassReport, SliceInfo};
pub use diagram::{Coords, Diagram, Mark, Style};
pub use human::HumanReporter;
pub use model::{
    ChangeRecord, MergeError, MergeProblem, Merging, REPORT_VERSION, Report, RunIdentity,
    ScenarioRecord, Status, Totals, cause, compile_error_note,
};
pub use paint::{ColorChoice, Ink, Palette};
