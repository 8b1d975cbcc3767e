//! placeholder: pin
