//! SPDY/3.1 frames as kubectl and the kubelet speak them for port-forward, without I/O: a
//! [`Decoder`] of the byte stream (frames split anywhere: across TCP reads or WebSocket messages)
//! and an [`Encoder`], each with its own zlib context for the header blocks, kept across frames
//! for the whole connection, as the SPDY/3 draft (§2.6.10) and
//! `github.com/moby/spdystream/spdy` (`read.go`, `write.go`, `types.go`) have it: the preset
//! dictionary of the draft (§2.6.10.1), best compression, a sync flush after each block.
//!
//! Frames: a control frame is `1` (control bit), version 15 bits (3), type 16 bits, flags 8 bits,
//! length 24 bits, then its fields; a data frame is `0`, stream id 31 bits, flags 8 bits, length
//! 24 bits, then the bytes. Lengths inside header blocks are 32 bits (SPDY/3), names are lower
//! case and several values of one name are joined by NUL. Every frame type of SPDY/3 is read;
//! CREDENTIAL and unknown types are read as [`Frame::Other`] (spdystream ends the connection on
//! them; kubectl sends none).

use std::sync::OnceLock;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// The SPDY version kubectl and the kubelet speak (`spdystream/spdy/types.go`: `Version = 3`).
pub const VERSION: u16 = 3;
/// FLAG_FIN, on control and data frames: the sender's last frame on the stream.
pub const FLAG_FIN: u8 = 0x01;
/// RST_STREAM statuses of the draft (§2.6.3).
pub const PROTOCOL_ERROR: u32 = 1;
pub const CANCEL: u32 = 5;
/// The biggest DATA frame (24 bits of length).
pub const MAX_DATA: usize = (1 << 24) - 1;
/// The biggest header block kube-sim inflates: a bound against a compression bomb (kubectl's
/// port-forward blocks are three short headers).
const MAX_HEADER_BLOCK: usize = 1 << 20;

/// The draft's preset dictionary for header compression (§2.6.10.1), byte for byte: the
/// length-prefixed words, then the status codes, dates and types run together. Its Adler-32,
/// which a zlib stream that uses it names in its header, is [`DICTIONARY_ID`].
const DICTIONARY_PIECES: &[&[u8]] = &[
    b"\0\0\0\x07options",
    b"\0\0\0\x04head",
    b"\0\0\0\x04post",
    b"\0\0\0\x03put",
    b"\0\0\0\x06delete",
    b"\0\0\0\x05trace",
    b"\0\0\0\x06accept",
    b"\0\0\0\x0eaccept-charset",
    b"\0\0\0\x0faccept-encoding",
    b"\0\0\0\x0faccept-language",
    b"\0\0\0\x0daccept-ranges",
    b"\0\0\0\x03age",
    b"\0\0\0\x05allow",
    b"\0\0\0\x0dauthorization",
    b"\0\0\0\x0dcache-control",
    b"\0\0\0\x0aconnection",
    b"\0\0\0\x0ccontent-base",
    b"\0\0\0\x10content-encoding",
    b"\0\0\0\x10content-language",
    b"\0\0\0\x0econtent-length",
    b"\0\0\0\x10content-location",
    b"\0\0\0\x0bcontent-md5",
    b"\0\0\0\x0dcontent-range",
    b"\0\0\0\x0ccontent-type",
    b"\0\0\0\x04date",
    b"\0\0\0\x04etag",
    b"\0\0\0\x06expect",
    b"\0\0\0\x07expires",
    b"\0\0\0\x04from",
    b"\0\0\0\x04host",
    b"\0\0\0\x08if-match",
    b"\0\0\0\x11if-modified-since",
    b"\0\0\0\x0dif-none-match",
    b"\0\0\0\x08if-range",
    b"\0\0\0\x13if-unmodified-since",
    b"\0\0\0\x0dlast-modified",
    b"\0\0\0\x08location",
    b"\0\0\0\x0cmax-forwards",
    b"\0\0\0\x06pragma",
    b"\0\0\0\x12proxy-authenticate",
    b"\0\0\0\x13proxy-authorization",
    b"\0\0\0\x05range",
    b"\0\0\0\x07referer",
    b"\0\0\0\x0bretry-after",
    b"\0\0\0\x06server",
    b"\0\0\0\x02te",
    b"\0\0\0\x07trailer",
    b"\0\0\0\x11transfer-encoding",
    b"\0\0\0\x07upgrade",
    b"\0\0\0\x0auser-agent",
    b"\0\0\0\x04vary",
    b"\0\0\0\x03via",
    b"\0\0\0\x07warning",
    b"\0\0\0\x10www-authenticate",
    b"\0\0\0\x06method",
    b"\0\0\0\x03get",
    b"\0\0\0\x06status",
    b"\0\0\0\x06200 OK",
    b"\0\0\0\x07version",
    b"\0\0\0\x08HTTP/1.1",
    b"\0\0\0\x03url",
    b"\0\0\0\x06public",
    b"\0\0\0\x0aset-cookie",
    b"\0\0\0\x0akeep-alive",
    b"\0\0\0\x06origin",
    b"1001012012022052063003023033043053063074024054064074084094104114",
    b"12413414415416417502504505203 Non-Authoritative Information204 N",
    b"o Content301 Moved Permanently400 Bad Request401 Unauthorized403",
    b" Forbidden404 Not Found500 Internal Server Error501 Not Implemen",
    b"ted503 Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept O",
    b"ct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunke",
    b"d,text/html,image/png,image/jpg,image/gif,application/xml,applic",
    b"ation/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=",
    b"gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.",
];

/// The Adler-32 of [`dictionary`]: `78 f9 e3 c6 a7 c2` starts every SPDY/3 header stream.
pub const DICTIONARY_ID: u32 = 0xe3c6_a7c2;

/// The preset dictionary, 1,423 bytes.
pub fn dictionary() -> &'static [u8] {
    static DICTIONARY: OnceLock<Vec<u8>> = OnceLock::new();
    DICTIONARY.get_or_init(|| DICTIONARY_PIECES.concat())
}

/// A header block: names (lower case) and values, several values of one name joined by NUL.
pub type Headers = Vec<(String, String)>;

/// The first value of `name` in `headers`, as Go's `http.Header.Get` reads it.
pub fn header<'a>(headers: &'a Headers, name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.split('\0').next().unwrap_or_default())
}

/// One frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    SynStream {
        stream_id: u32,
        associated_to: u32,
        priority: u8,
        flags: u8,
        headers: Headers,
    },
    SynReply {
        stream_id: u32,
        flags: u8,
        headers: Headers,
    },
    RstStream {
        stream_id: u32,
        status: u32,
    },
    /// Each setting: flags, id, value.
    Settings {
        flags: u8,
        settings: Vec<(u8, u32, u32)>,
    },
    Ping {
        id: u32,
    },
    GoAway {
        last_good_stream_id: u32,
        status: u32,
    },
    Headers {
        stream_id: u32,
        flags: u8,
        headers: Headers,
    },
    WindowUpdate {
        stream_id: u32,
        delta: u32,
    },
    Data {
        stream_id: u32,
        flags: u8,
        data: Vec<u8>,
    },
    /// A control frame of another type (CREDENTIAL, or none SPDY/3 defines).
    Other {
        frame_type: u16,
    },
}

/// Why a byte stream is not SPDY/3: the connection cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn error<T>(message: impl Into<String>) -> Result<T, Error> {
    Err(Error(message.into()))
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32, Error> {
    match bytes.get(at..at + 4) {
        Some(b) => Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
        None => error("frame too short"),
    }
}

/// Reads frames from the bytes of one direction of a connection.
pub struct Decoder {
    buffer: Vec<u8>,
    inflate: Decompress,
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder::new()
    }
}

impl Decoder {
    pub fn new() -> Decoder {
        Decoder { buffer: Vec::new(), inflate: Decompress::new(true) }
    }

    /// Takes bytes as they came; [`Decoder::next_frame`] reads the frames they complete.
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// The next whole frame, if the bytes so far hold one.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, Error> {
        if self.buffer.len() < 8 {
            return Ok(None);
        }
        let length = u32_at(&self.buffer, 4)? as usize & 0x00ff_ffff;
        if self.buffer.len() < 8 + length {
            return Ok(None);
        }
        let bytes: Vec<u8> = self.buffer.drain(..8 + length).collect();
        self.parse(&bytes).map(Some)
    }

    fn parse(&mut self, bytes: &[u8]) -> Result<Frame, Error> {
        let first = u32_at(bytes, 0)?;
        let flags = bytes[4];
        let body = &bytes[8..];
        if first & 0x8000_0000 == 0 {
            let stream_id = first & 0x7fff_ffff;
            if stream_id == 0 {
                return error("stream id zero is disallowed");
            }
            return Ok(Frame::Data { stream_id, flags, data: body.to_vec() });
        }
        // The version is not checked: spdystream reads it and goes on whatever it is.
        let frame_type = (first & 0xffff) as u16;
        let field = |at| u32_at(body, at);
        Ok(match frame_type {
            1 => {
                if body.len() < 10 {
                    return error("invalid control frame");
                }
                let headers = self.headers(&body[10..])?;
                Frame::SynStream {
                    stream_id: field(0)? & 0x7fff_ffff,
                    associated_to: field(4)? & 0x7fff_ffff,
                    priority: body[8] >> 5,
                    flags,
                    headers,
                }
            }
            2 | 8 => {
                if body.len() < 4 {
                    return error("invalid control frame");
                }
                let stream_id = field(0)? & 0x7fff_ffff;
                let headers = self.headers(&body[4..])?;
                if frame_type == 2 {
                    Frame::SynReply { stream_id, flags, headers }
                } else {
                    Frame::Headers { stream_id, flags, headers }
                }
            }
            3 => Frame::RstStream { stream_id: field(0)? & 0x7fff_ffff, status: field(4)? },
            4 => {
                let count = field(0)? as usize;
                if body.len() != 4 + 8 * count {
                    return error("invalid control frame");
                }
                let settings = (0..count)
                    .map(|i| {
                        let id = field(4 + 8 * i)?;
                        Ok(((id >> 24) as u8, id & 0x00ff_ffff, field(8 + 8 * i)?))
                    })
                    .collect::<Result<_, Error>>()?;
                Frame::Settings { flags, settings }
            }
            6 => Frame::Ping { id: field(0)? },
            7 => Frame::GoAway { last_good_stream_id: field(0)? & 0x7fff_ffff, status: field(4)? },
            9 => Frame::WindowUpdate { stream_id: field(0)? & 0x7fff_ffff, delta: field(4)? & 0x7fff_ffff },
            other => Frame::Other { frame_type: other },
        })
    }

    /// Inflates a header block with the connection's context (the dictionary set when the
    /// stream asks for it, in its first block) and reads it.
    fn headers(&mut self, compressed: &[u8]) -> Result<Headers, Error> {
        let mut plain = Vec::with_capacity(compressed.len() * 4 + 64);
        let mut consumed = 0;
        loop {
            if plain.len() == plain.capacity() {
                plain.reserve(plain.capacity().max(256));
            }
            let (before, produced) = (self.inflate.total_in(), plain.len());
            let result = self.inflate.decompress_vec(&compressed[consumed..], &mut plain, FlushDecompress::Sync);
            let taken = (self.inflate.total_in() - before) as usize;
            consumed += taken;
            match result {
                Ok(Status::StreamEnd) => break,
                Ok(_) => {
                    let room = plain.len() < plain.capacity();
                    if consumed == compressed.len() && room {
                        break;
                    }
                    if taken == 0 && plain.len() == produced && room {
                        return error("a header block stops short");
                    }
                }
                Err(e) => match e.needs_dictionary() {
                    Some(DICTIONARY_ID) => {
                        if self.inflate.set_dictionary(dictionary()).is_err() {
                            return error("the header dictionary was refused");
                        }
                    }
                    Some(other) => return error(format!("a header block asks for dictionary {other:#010x}")),
                    None => return error(format!("a header block does not inflate: {e}")),
                },
            }
            if plain.len() > MAX_HEADER_BLOCK {
                return error("header block too large");
            }
        }
        if consumed != compressed.len() {
            return error("compressed payload size was incorrect");
        }
        read_block(&plain)
    }
}

/// Reads an inflated header block: a count, then each name and value with its length.
pub fn read_block(plain: &[u8]) -> Result<Headers, Error> {
    let count = u32_at(plain, 0)? as usize;
    let mut at = 4;
    let take = |at: &mut usize| -> Result<String, Error> {
        let length = u32_at(plain, *at)? as usize;
        let Some(bytes) = plain.get(*at + 4..*at + 4 + length) else {
            return error("header block too short");
        };
        *at += 4 + length;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    };
    let mut headers = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let name = take(&mut at)?;
        let value = take(&mut at)?;
        // spdystream lower-cases a name that is not (and reports it); kube-sim reads it the same.
        headers.push((name.to_ascii_lowercase(), value));
    }
    Ok(headers)
}

/// Writes a header block before compression (names lower case, as `writeHeaderValueBlock`).
pub fn write_block(headers: &Headers) -> Vec<u8> {
    let mut out = (headers.len() as u32).to_be_bytes().to_vec();
    for (name, value) in headers {
        for word in [name.to_ascii_lowercase().as_bytes(), value.as_bytes()] {
            out.extend_from_slice(&(word.len() as u32).to_be_bytes());
            out.extend_from_slice(word);
        }
    }
    out
}

/// Writes the frames of one direction of a connection.
pub struct Encoder {
    deflate: Compress,
}

impl Default for Encoder {
    fn default() -> Self {
        Encoder::new()
    }
}

impl Encoder {
    pub fn new() -> Encoder {
        let mut deflate = Compress::new(Compression::best(), true);
        // Before the first byte: the stream's header then names the dictionary.
        deflate.set_dictionary(dictionary()).expect("a fresh deflate stream takes a dictionary");
        Encoder { deflate }
    }

    /// The bytes of `frame`. A frame that SPDY/3 does not let one write (a DATA frame over
    /// [`MAX_DATA`], [`Frame::Other`]) is a bug of the caller's.
    pub fn encode(&mut self, frame: &Frame) -> Vec<u8> {
        match frame {
            Frame::Data { stream_id, flags, data } => {
                assert!(data.len() <= MAX_DATA, "a DATA frame of {} bytes", data.len());
                let mut out = (stream_id & 0x7fff_ffff).to_be_bytes().to_vec();
                out.extend_from_slice(&((u32::from(*flags) << 24) | data.len() as u32).to_be_bytes());
                out.extend_from_slice(data);
                out
            }
            Frame::SynStream { stream_id, associated_to, priority, flags, headers } => {
                let mut body = stream_id.to_be_bytes().to_vec();
                body.extend_from_slice(&associated_to.to_be_bytes());
                body.extend_from_slice(&[priority << 5, 0]);
                body.extend(self.compress(headers));
                control(1, *flags, &body)
            }
            Frame::SynReply { stream_id, flags, headers } | Frame::Headers { stream_id, flags, headers } => {
                let frame_type = if matches!(frame, Frame::SynReply { .. }) { 2 } else { 8 };
                let mut body = stream_id.to_be_bytes().to_vec();
                body.extend(self.compress(headers));
                control(frame_type, *flags, &body)
            }
            Frame::RstStream { stream_id, status } => control(3, 0, &pair(*stream_id, *status)),
            Frame::Settings { flags, settings } => {
                let mut body = (settings.len() as u32).to_be_bytes().to_vec();
                for (setting_flags, id, value) in settings {
                    body.extend_from_slice(&pair((u32::from(*setting_flags) << 24) | (id & 0x00ff_ffff), *value));
                }
                control(4, *flags, &body)
            }
            Frame::Ping { id } => control(6, 0, &id.to_be_bytes()),
            Frame::GoAway { last_good_stream_id, status } => control(7, 0, &pair(*last_good_stream_id, *status)),
            Frame::WindowUpdate { stream_id, delta } => control(9, 0, &pair(*stream_id, *delta)),
            Frame::Other { frame_type } => panic!("kube-sim writes no control frame of type {frame_type}"),
        }
    }

    /// Deflates a header block with the connection's context, then a sync flush.
    fn compress(&mut self, headers: &Headers) -> Vec<u8> {
        let plain = write_block(headers);
        let mut out = Vec::with_capacity(plain.len() + 64);
        let mut consumed = 0;
        loop {
            if out.len() == out.capacity() {
                out.reserve(out.capacity().max(64));
            }
            let before = self.deflate.total_in();
            self.deflate
                .compress_vec(&plain[consumed..], &mut out, FlushCompress::Sync)
                .expect("deflate takes any bytes");
            consumed += (self.deflate.total_in() - before) as usize;
            // All taken and room left: the flush is complete.
            if consumed == plain.len() && out.len() < out.capacity() {
                return out;
            }
        }
    }
}

fn pair(a: u32, b: u32) -> [u8; 8] {
    let mut out = [0; 8];
    out[..4].copy_from_slice(&a.to_be_bytes());
    out[4..].copy_from_slice(&b.to_be_bytes());
    out
}

fn control(frame_type: u16, flags: u8, body: &[u8]) -> Vec<u8> {
    let mut out = (0x8000 | VERSION).to_be_bytes().to_vec();
    out.extend_from_slice(&frame_type.to_be_bytes());
    out.extend_from_slice(&((u32::from(flags) << 24) | body.len() as u32).to_be_bytes());
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn hex(text: &str) -> Vec<u8> {
        let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_hexdigit).collect();
        digits.chunks(2).map(|d| u8::from_str_radix(std::str::from_utf8(d).unwrap(), 16).unwrap()).collect()
    }

    fn adler32(bytes: &[u8]) -> u32 {
        let (mut a, mut b) = (1u32, 0u32);
        for &byte in bytes {
            a = (a + u32::from(byte)) % 65521;
            b = (b + a) % 65521;
        }
        (b << 16) | a
    }

    /// What the real kubectl 1.29.14 wrote on its port-forward connection (a SPDY/3.1 upgrade)
    /// for two `curl http://127.0.0.1:LOCAL/…` through it, then two pings, as the TCP reads
    /// brought them (captured in front of kube-sim, 2026-11-29): stream 1 (error) and 3 (data)
    /// for request 0, 5 and 7 for request 1; the header blocks share one zlib stream.
    pub(crate) fn kubectl_1_29() -> Vec<&'static str> {
        let capture = include_str!("../../tests/data/kubectl-1.29-portforward.hex");
        capture.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
    }

    fn headers(pairs: &[(&str, &str)]) -> Headers {
        pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    fn syn(stream_id: u32, pairs: &[(&str, &str)]) -> Frame {
        Frame::SynStream { stream_id, associated_to: 0, priority: 0, flags: 0, headers: headers(pairs) }
    }

    fn fin(stream_id: u32) -> Frame {
        Frame::Data { stream_id, flags: FLAG_FIN, data: Vec::new() }
    }

    fn decode_all(decoder: &mut Decoder) -> Vec<Frame> {
        std::iter::from_fn(|| decoder.next_frame().expect("SPDY/3")).collect()
    }

    #[test]
    fn the_dictionary_is_the_drafts() {
        let d = dictionary();
        assert_eq!(d.len(), 1423);
        assert_eq!(adler32(d), DICTIONARY_ID);
        assert!(d.starts_with(b"\0\0\0\x07options\0\0\0\x04head"));
        assert!(d.ends_with(b"charset=iso-8859-1,utf-,*,enq=0."));
    }

    #[test]
    fn kubectls_frames_decode_with_one_context_however_they_are_split() {
        let bytes: Vec<u8> = kubectl_1_29().iter().flat_map(|h| hex(h)).collect();
        let request = |path: &str| {
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:18960\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n")
                .into_bytes()
        };
        let want = vec![
            syn(1, &[("streamtype", "error"), ("port", "80"), ("requestid", "0")]),
            fin(1),
            syn(3, &[("streamtype", "data"), ("port", "80"), ("requestid", "0")]),
            Frame::Data { stream_id: 3, flags: 0, data: request("/some/path") },
            fin(3),
            syn(5, &[("requestid", "1"), ("streamtype", "error"), ("port", "80")]),
            fin(5),
            syn(7, &[("streamtype", "data"), ("port", "80"), ("requestid", "1")]),
            Frame::Data { stream_id: 7, flags: 0, data: request("/second") },
            fin(7),
            Frame::Ping { id: 1 },
            Frame::Ping { id: 3 },
        ];
        // As the reads came.
        let mut decoder = Decoder::new();
        let mut got = Vec::new();
        for chunk in kubectl_1_29() {
            decoder.push(&hex(chunk));
            got.extend(decode_all(&mut decoder));
        }
        assert_eq!(got, want);
        // A byte at a time, and all at once.
        let mut decoder = Decoder::new();
        let mut got = Vec::new();
        for byte in &bytes {
            decoder.push(std::slice::from_ref(byte));
            got.extend(decode_all(&mut decoder));
        }
        assert_eq!(got, want);
        let mut decoder = Decoder::new();
        decoder.push(&bytes);
        assert_eq!(decode_all(&mut decoder), want);
        // The second block is compressed against the first: alone, it does not inflate.
        let mut fresh = Decoder::new();
        fresh.push(&hex("800300010000001800000003000000000000c2aa15540a2512d209000000ffff"));
        assert!(fresh.next_frame().is_err());
    }

    #[test]
    fn frames_without_header_blocks_are_written_byte_for_byte() {
        let mut e = Encoder::new();
        assert_eq!(
            e.encode(&Frame::Data { stream_id: 3, flags: 0, data: b"hi".to_vec() }),
            hex("00000003 00000002 6869")
        );
        assert_eq!(e.encode(&fin(1)), hex("00000001 01000000"));
        assert_eq!(
            e.encode(&Frame::RstStream { stream_id: 5, status: CANCEL }),
            hex("80030003 00000008 00000005 00000005")
        );
        assert_eq!(e.encode(&Frame::Ping { id: 1 }), hex("80030006 00000004 00000001"));
        assert_eq!(
            e.encode(&Frame::GoAway { last_good_stream_id: 7, status: PROTOCOL_ERROR }),
            hex("80030007 00000008 00000007 00000001")
        );
        assert_eq!(
            e.encode(&Frame::WindowUpdate { stream_id: 3, delta: 65536 }),
            hex("80030009 00000008 00000003 00010000")
        );
        assert_eq!(
            e.encode(&Frame::Settings { flags: 0, settings: vec![(1, 7, 65536)] }),
            hex("80030004 0000000c 00000001 01000007 00010000")
        );
    }

    #[test]
    fn a_reply_names_the_dictionary_and_ends_with_a_sync_flush() {
        let mut e = Encoder::new();
        let reply = e.encode(&Frame::SynReply { stream_id: 1, flags: 0, headers: Vec::new() });
        // Control bit and version 3, SYN_REPLY, no flags, the length; stream 1; a zlib header of
        // best compression with a preset dictionary (78 f9), the dictionary's Adler-32.
        assert_eq!(reply[..5], hex("80030002 00")[..]);
        assert_eq!(u32_at(&reply, 4).unwrap() as usize, reply.len() - 8);
        assert_eq!(reply[8..18], hex("00000001 78f9 e3c6a7c2")[..]);
        assert!(reply.ends_with(&hex("0000ffff")), "{reply:02x?}");
        // zlib 1.2.13 (Python's zlib, level 9, the same dictionary) writes these very bytes.
        assert_eq!(reply, hex("80030002000000140000000178f9e3c6a7c202a6230600000000ffff"));
        let second = e.encode(&Frame::SynReply { stream_id: 3, flags: 0, headers: Vec::new() });
        assert_eq!(second, hex("800300020000000c00000003020100000000ffff"));
    }

    #[test]
    fn frames_round_trip_through_one_context_a_direction() {
        let frames = vec![
            syn(1, &[("streamtype", "error"), ("port", "8080"), ("requestid", "0")]),
            Frame::SynReply {
                stream_id: 1,
                flags: FLAG_FIN,
                headers: headers(&[("status", "200 OK"), ("set-cookie", "a=1\0b=2")]),
            },
            Frame::Headers { stream_id: 1, flags: 0, headers: Vec::new() },
            Frame::SynStream {
                stream_id: 3,
                associated_to: 1,
                priority: 7,
                flags: FLAG_FIN,
                headers: headers(&[("x", "")]),
            },
            Frame::Data { stream_id: 3, flags: 0, data: vec![7; 70_000] },
            Frame::RstStream { stream_id: 3, status: CANCEL },
            Frame::Settings { flags: 1, settings: vec![(1, 4, 100), (0, 7, 65536)] },
            Frame::Ping { id: 2 },
            Frame::WindowUpdate { stream_id: 1, delta: 1 },
            Frame::GoAway { last_good_stream_id: 3, status: 0 },
        ];
        let mut encoder = Encoder::new();
        let bytes: Vec<u8> = frames.iter().flat_map(|f| encoder.encode(f)).collect();
        for split in [1, 7, 4096, bytes.len()] {
            let mut decoder = Decoder::new();
            let mut got = Vec::new();
            for chunk in bytes.chunks(split) {
                decoder.push(chunk);
                got.extend(decode_all(&mut decoder));
            }
            assert_eq!(got, frames, "in chunks of {split}");
        }
        assert_eq!(header(&headers(&[("set-cookie", "a=1\0b=2")]), "set-cookie"), Some("a=1"));
    }

    #[test]
    fn what_is_not_spdy3_is_an_error() {
        // A zlib stream with another preset dictionary (Adler-32 00000001).
        let mut d = Decoder::new();
        d.push(&hex("80030002 0000000a 00000001 78f9 00000001"));
        assert!(d.next_frame().unwrap_err().0.contains("dictionary 0x00000001"));
        let mut d = Decoder::new();
        d.push(&hex("80030002 00000008 00000001 01020304"));
        assert!(d.next_frame().is_err(), "not zlib");
        let mut d = Decoder::new();
        d.push(&hex("00000000 00000000"));
        assert!(d.next_frame().is_err(), "data on stream 0");
        let mut d = Decoder::new();
        d.push(&hex("8003000a 00000000 800300"));
        assert_eq!(d.next_frame(), Ok(Some(Frame::Other { frame_type: 10 })));
        assert_eq!(d.next_frame(), Ok(None), "a partial frame waits");
    }
}
