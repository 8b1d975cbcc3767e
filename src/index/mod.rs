//! THE index: what every source file of the project defines, says and uses, read once, and
//! the ranking of files for a story — "where to look" in the prompt, `ralph pin search
//! --files`. The Pin (specs/INDEX.md, [`crate::pin`]) is written from it and searched with its
//! BM25F and tokenizer: one walk, one tokenizer, one definition extractor per language, one
//! BM25F.
//!
//! The Pin is the human-facing, hand-editable module map; this index is the machine's, one
//! level finer: per file, its path words, its definitions (kind, name, line), comments,
//! all its words, imports, links and module doc, cached under `.ralph/code-index.bin` and
//! refreshed incrementally (only changed files are read again). A missing, stale or corrupt
//! cache is rebuilt, never an error.
//!
//! - [`walk`]: which files are indexed (sources, docs about the code, manifests) and which
//!   folders are never entered; the walk.
//! - [`text`]: THE tokenizer. [`lang`]: THE extractor, a line matcher per language. Pure.
//! - [`facts`]: one file's facts; [`kind`]: source, test, example, fixture, bench or docs,
//!   from the path; [`hashed`]: the term ids of the words a reader met before. Pure.
//! - [`store`]: the cache format; [`scan`]: the incremental refresh (the I/O).
//! - [`cochange`]: files changed together in recent git history.
//! - [`graph`]: the definition/use links around a story's best hits, and their personalised
//!   PageRank. Pure.
//! - [`query`]: a story's words as weighted search terms; [`rank`]: the ranking, with
//!   [`bm25`], THE BM25F; [`sigs`]: the signatures a ranked file shows, from its lines. Pure.
//!
//! Does not own the prompt (see [`crate::context`]) nor the Pin (see [`crate::pin`]).

pub(crate) mod bm25;
pub(crate) mod cochange;
pub(crate) mod facts;
pub(crate) mod graph;
pub(crate) mod hashed;
pub(crate) mod kind;
pub(crate) mod lang;
pub(crate) mod query;
pub(crate) mod rank;
pub(crate) mod scan;
pub(crate) mod sigs;
pub(crate) mod store;
pub(crate) mod text;
pub(crate) mod walk;

pub(crate) use query::{QueryTerm, as_written, query, written_words};
pub(crate) use rank::{Evidence, OUTLINED_FILES, PinEvidence, Ranked};
pub(crate) use scan::refresh;
