//! placeholder: run
