//! The simulated container process behind `pods/exec` and `pods/attach`, without I/O: the
//! WebSocket channel protocols (`protocol`), what the process sees of its container
//! (`container`: environment and mounted files), the shell's grammar (`words`), its commands
//! (`commands`, `printf`) and the process itself (`shell`). `http::exec` drives them over a
//! WebSocket.

pub mod commands;
pub mod container;
pub mod page;
pub mod printf;
pub mod protocol;
pub mod shell;
pub mod tar;
pub mod words;
