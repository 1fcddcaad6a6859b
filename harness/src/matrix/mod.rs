//! `agy-harness matrix`: the selected scenarios against one adapter under each agy
//! version fake-agy models, as an adapter × version table (terminal, JSON, Markdown,
//! HTML).

mod args;
mod command;
mod html;
mod table;

pub use args::{MatrixArgs, UncertainChoice};
pub use command::matrix_command;
pub use table::{Cell, Matrix, Row};
