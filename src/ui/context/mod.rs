//! An object in its context (#36): what happened to it (its Events).

pub mod events;
