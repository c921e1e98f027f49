//! An object in its context (#36): what happened to it (its Events) and who changed which field
//! (its field managers).

pub mod events;
pub mod owners;
pub mod picture;
pub mod relations;
pub mod time_axis;
