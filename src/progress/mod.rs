//! placeholder: progress
