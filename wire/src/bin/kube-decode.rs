//! `kube-decode`: decode a Kubernetes API response body from a file (or stdin) and print it as
//! the Kubernetes JSON encoder would, one line per document or watch event.
//!
//! ```text
//! kube-decode --content-type TYPE [--watch] [--envelope] FILE|-
//! ```
//!
//! A watch stream is read when `--watch` is given or the type is one (`application/cbor-seq`,
//! protobuf `;stream=watch`). A protobuf body prints its object decoded in full (the messages of
//! the built-in types, as the JSON the server writes for them), or with `--envelope` only what its
//! envelope says (which every type has: a custom resource's object has no message to decode it
//! with). On bad input it prints one line
//! on stderr (what was expected, what came, where) and exits 1; on bad arguments it exits 2.
//! Native only: on wasm32 the binary is an empty shell so that the package still builds there.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::io::{Read, Write};
    use std::process::ExitCode;

    use kube_wire::body::{decode_body, decode_body_in_full, decode_watch_body, decode_watch_body_in_full};
    use kube_wire::codec::value::Value;
    use kube_wire::media_type::MediaType;

    const USAGE: &str = "usage: kube-decode --content-type TYPE [--watch] [--envelope] FILE|-";

    struct Args {
        content_type: MediaType,
        watch: bool,
        /// Protobuf: the envelope only, not the object decoded in full.
        envelope: bool,
        input: String,
    }

    fn parse_args(args: impl Iterator<Item = String>) -> Result<Args, String> {
        let (mut content_type, mut watch, mut envelope, mut input) = (None, false, false, None);
        let mut args = args.peekable();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--content-type" => {
                    let value = args.next().ok_or("expected a media type after --content-type, found nothing")?;
                    content_type = Some(value.parse::<MediaType>().map_err(|e| e.to_string())?);
                }
                "--watch" => watch = true,
                "--envelope" => envelope = true,
                "-h" | "--help" => return Err(USAGE.to_string()),
                other if other.starts_with("--") => return Err(format!("expected an option or a file, found {other}")),
                other if input.is_none() => input = Some(other.to_string()),
                other => return Err(format!("expected one input, found a second one: {other}")),
            }
        }
        Ok(Args {
            content_type: content_type.ok_or("expected --content-type TYPE, found nothing")?,
            watch,
            envelope,
            input: input.ok_or("expected a FILE or -, found nothing")?,
        })
    }

    fn read_input(input: &str) -> Result<Vec<u8>, String> {
        let mut bytes = Vec::new();
        let result = if input == "-" {
            std::io::stdin().read_to_end(&mut bytes).map(|_| ())
        } else {
            std::fs::File::open(input).and_then(|mut f| f.read_to_end(&mut bytes)).map(|_| ())
        };
        result.map(|()| bytes).map_err(|e| format!("cannot read {input}: {e}"))
    }

    pub fn main() -> ExitCode {
        let args = match parse_args(std::env::args().skip(1)) {
            Ok(args) => args,
            Err(message) => {
                eprintln!("kube-decode: {message}\n{USAGE}");
                return ExitCode::from(2);
            }
        };
        let bytes = match read_input(&args.input) {
            Ok(bytes) => bytes,
            Err(message) => {
                eprintln!("kube-decode: {message}");
                return ExitCode::from(2);
            }
        };
        let to_lines = |values: Vec<Value>| values.iter().map(Value::to_json).collect::<Vec<_>>();
        let lines = match (args.watch || args.content_type.is_watch_stream(), args.envelope) {
            (true, true) => decode_watch_body(&args.content_type, &bytes).map(to_lines),
            (true, false) => decode_watch_body_in_full(&args.content_type, &bytes).map(to_lines),
            (false, true) => decode_body(&args.content_type, &bytes).map(|d| to_lines(vec![d.to_value()])),
            (false, false) => decode_body_in_full(&args.content_type, &bytes).map(|v| to_lines(vec![v])),
        };
        match lines {
            Ok(lines) => {
                let mut out = std::io::stdout().lock();
                for line in lines {
                    if writeln!(out, "{line}").is_err() {
                        return ExitCode::from(1);
                    }
                }
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("kube-decode: {error}");
                ExitCode::from(1)
            }
        }
    }
}
