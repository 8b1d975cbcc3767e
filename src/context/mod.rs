//! placeholder: context
