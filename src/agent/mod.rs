//! placeholder: agent
