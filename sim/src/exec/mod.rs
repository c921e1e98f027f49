//! The simulated container process behind `pods/exec` and `pods/attach`, without I/O: the
//! WebSocket channel protocols (`protocol`), what the process sees of its container
//! (`container`: environment and mounted files), the shell's grammar (`words`), its commands
//! (`commands`, `printf`, `coreutils`), word expansion (`expand`) and the process itself (`shell`,
//! its levels in `frames`), and the container's own process (`main`: its `command` run from
//! its start, the source of its log and of the files it writes), and what a container port
//! answers (`page`, an HTTP server) with port-forward's SPDY/3.1 session (`portforward`, on the
//! framing of `spdy`). `http::exec` drives them over a WebSocket or an upgraded connection,
//! `http::logs` reads the log.

pub mod commands;
pub mod container;
pub mod coreutils;
pub mod expand;
pub mod frames;
pub mod main;
pub mod page;
pub mod portforward;
pub mod printf;
pub mod protocol;
pub mod shell;
pub mod spdy;
pub mod tar;
pub mod words;
