//! The crate's own small copies of what std and serde_json already offer:
//! each costs the wasm module less than the general one (its doc says how
//! much), and the module must stay within its size budget.

pub mod collect;
pub mod hash;
pub mod join;
pub mod json;
pub mod number;
