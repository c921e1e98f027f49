//! Strings that are not UTF-8, read as the real server reads them: Go's protobuf decoder puts any
//! bytes in a string field and its JSON encoder writes U+FFFD for each byte that is not part of
//! valid UTF-8 (encoding/json `encodeState.string`), so one bad byte does not fail the object;
//! prost refuses the whole message instead.
//!
//! When prost refuses a message for that reason, its length-delimited fields are tried one by
//! one with the message's own decoder as the judge: a field that alone fails for UTF-8 and
//! passes with its bad bytes replaced is a string; one that still fails is a message, whose
//! fields are tried the same way (the judge decodes them in place). Bytes fields never fail for
//! UTF-8, so they are never touched. Only the refused path pays for the tries.

use prost::Message;

/// How a candidate message fares with the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Decodes,
    NotUtf8,
    Fails,
}

fn verdict<M: Message + Default>(bytes: &[u8]) -> Verdict {
    match M::decode(bytes) {
        Ok(_) => Verdict::Decodes,
        Err(e) if is_utf8_error(&e) => Verdict::NotUtf8,
        Err(_) => Verdict::Fails,
    }
}

fn is_utf8_error(e: &prost::DecodeError) -> bool {
    e.to_string().contains("not UTF-8")
}

/// `raw` decoded as `M`, a string field's bad bytes read as U+FFFD.
pub(crate) fn decode<M: Message + Default>(raw: &[u8]) -> Result<M, prost::DecodeError> {
    match M::decode(raw) {
        Err(e) if is_utf8_error(&e) => {
            let fixed = mend(raw, &|candidate: &[u8]| verdict::<M>(candidate), 0).ok_or(e)?;
            M::decode(fixed.as_slice())
        }
        other => other,
    }
}

/// Go's reading of bytes as text: U+FFFD for each byte that is not part of valid UTF-8.
pub fn go_lossy(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('\u{FFFD}', chunk.invalid().len()));
    }
    out
}

/// `message` with the bad strings of its fields (and theirs) replaced; `judge` decodes a
/// candidate as the message at this place would be. `None` when the bytes are not a message.
fn mend(message: &[u8], judge: &dyn Fn(&[u8]) -> Verdict, depth: usize) -> Option<Vec<u8>> {
    if depth > 32 {
        return None;
    }
    let mut out = Vec::with_capacity(message.len());
    let mut at = 0;
    while at < message.len() {
        let (key, after_key) = varint(message, at)?;
        let start = at;
        match key & 7 {
            0 => at = varint(message, after_key)?.1,
            1 => at = after_key.checked_add(8).filter(|e| *e <= message.len())?,
            5 => at = after_key.checked_add(4).filter(|e| *e <= message.len())?,
            2 => {
                let (len, body) = varint(message, after_key)?;
                let end = body.checked_add(usize::try_from(len).ok()?).filter(|e| *e <= message.len())?;
                let payload = &message[body..end];
                out.extend_from_slice(&mended_field(key, payload, judge, depth)?);
                at = end;
                continue;
            }
            _ => return None,
        }
        out.extend_from_slice(&message[start..at]);
    }
    Some(out)
}

/// One length-delimited field, mended: as it is, as text with U+FFFD, or as a mended message.
fn mended_field(key: u64, payload: &[u8], judge: &dyn Fn(&[u8]) -> Verdict, depth: usize) -> Option<Vec<u8>> {
    let field = |p: &[u8]| {
        let mut f = Vec::new();
        put_varint(&mut f, key);
        put_varint(&mut f, p.len() as u64);
        f.extend_from_slice(p);
        f
    };
    let as_is = field(payload);
    if judge(&as_is) != Verdict::NotUtf8 {
        return Some(as_is);
    }
    let as_text = field(go_lossy(payload).as_bytes());
    if judge(&as_text) == Verdict::Decodes {
        return Some(as_text);
    }
    let inner_judge = |candidate: &[u8]| judge(&field(candidate));
    mend(payload, &inner_judge, depth + 1).map(|inner| field(&inner))
}

fn varint(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(at)?;
        at += 1;
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some((value, at));
        }
    }
    None
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}
