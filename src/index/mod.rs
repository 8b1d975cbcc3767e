//! The code index: what every source file of the project defines, says and uses, and the
//! ranking of files for a story — "where to look" in the prompt, `ralph pin search --files`.
//!
//! The Pin (specs/INDEX.md, [`crate::pin`]) is the human-facing, hand-editable module map; this
//! index is the machine's, one level finer: per file, its path words, its definitions with
//! one-line signatures, comments, all its words and imports, cached under
//! `.ralph/code-index.bin` and refreshed incrementally (only changed files are read again).
//! A missing, stale or corrupt cache is rebuilt, never an error.
//!
//! - [`kind`]: source, test, example, fixture, bench or docs, from the path.
//! - [`facts`] (with the per-language patterns in `lang`): one file's facts. Pure.
//! - [`store`]: the cache format; [`scan`]: the walk and incremental refresh (the I/O).
//! - [`cochange`]: files changed together in recent git history.
//! - [`query`]: a story's words as weighted search terms; [`rank`]: the ranking, with
//!   [`bm25`], the one BM25F (which the Pin's search scores with too). Pure.
//! - [`text`]: THE tokenizer, which the Pin reads its entries and keywords through too;
//!   [`walk`]: which files are source and which folders are never entered, for the Pin too.
//!
//! Does not own the prompt (see [`crate::context`]) nor the Pin (see [`crate::pin`]).

pub mod bm25;
pub mod cochange;
pub mod facts;
pub mod kind;
mod lang;
pub mod query;
pub mod rank;
pub mod scan;
pub mod store;
pub mod text;
pub mod walk;

pub use kind::Kind;
pub use query::{QueryTerm, as_written, query, written_words};
pub use rank::{Evidence, OUTLINED_FILES, PinEvidence, Ranked, rank};
pub use scan::{Refresh, refresh};
