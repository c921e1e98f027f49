//! The fast pass over a CBOR watch event (see [`crate::watch::fast`]), on the CBOR
//! [`Reader`]: the event checked by the rules `decode_cbor` applies, what a live view needs kept.

use ciborium_ll::Header;

use crate::codec::cbor::Reader;
use crate::codec::value::MAX_DEPTH;
use crate::error::{DecodeError, Format};
use crate::watch::fast::{FastEvent, Member, Scanned, Spot};

/// The fast pass over one CBOR watch event (see [`crate::watch::lazy`]): the whole event checked by
/// the rules [`decode_cbor`] applies, without building the object; `None` when the event is not
/// an ADDED, MODIFIED or DELETED event with an object, or anything in it is refused (the full
/// decoder then decides and names the error). The same pass as [`scan_cbor_prefix`], which must
/// take all of `input`.
pub(crate) fn scan_cbor_event(input: &[u8], offset: usize) -> Option<FastEvent> {
    scan_cbor_prefix(input, offset).filter(|(len, _)| *len == input.len()).and_then(|(_, fast)| fast)
}

/// The fast pass over the CBOR event that `bytes` start with (more may follow it, or it may be
/// cut short): `None` when no whole event that keeps the rules is there (the framer then finds
/// its end and the full decoder reads it); else how many bytes the event took, with the event
/// when the fast pass takes it (`None`: the full decoder reads those bytes).
pub(crate) fn scan_cbor_prefix(bytes: &[u8], offset: usize) -> Option<(usize, Option<FastEvent>)> {
    let mut reader = Reader::new(bytes);
    let mut scanned = Scanned::default();
    reader.scan(Spot::Event, 0, &mut scanned).ok()?;
    let event = &bytes[..reader.pos];
    Some((event.len(), scanned.into_event(Format::Cbor, event, offset)))
}

impl<'a> Reader<'a> {
    /// Reads the next item at `depth`, a member the fast pass looks inside, into `scanned` by
    /// what [`Spot::member`] says; the whole item is checked.
    fn scan(&mut self, spot: Spot, depth: usize, scanned: &mut Scanned) -> Result<(), DecodeError> {
        let (at, header) = self.pull()?;
        self.scan_at(spot, depth, scanned, at, header)
    }

    /// [`Reader::scan`] of an item whose head was read.
    pub(crate) fn scan_at(
        &mut self,
        spot: Spot,
        depth: usize,
        scanned: &mut Scanned,
        at: usize,
        header: Header,
    ) -> Result<(), DecodeError> {
        let (at, header) = self.untag(at, header)?;
        let nested = depth >= MAX_DEPTH;
        match header {
            Header::Map(len) if spot != Spot::Rows && !nested => {
                scanned.enter(spot, true);
                self.walk_map(len, depth, &mut |reader, key, depth| match spot.member(key) {
                    Member::Text(field) => {
                        let value = reader.item(depth)?;
                        scanned.text(field, value.as_str());
                        Ok(())
                    }
                    Member::Value(field) => {
                        let value = reader.item(depth)?;
                        scanned.value(field, value);
                        Ok(())
                    }
                    Member::Enter(inner) => reader.scan(inner, depth, scanned),
                    Member::Skip => reader.skip_deferring_keys(depth),
                })
            }
            Header::Array(len) if spot == Spot::Rows && !nested => {
                scanned.enter(Spot::Rows, true);
                let mut rows = 0;
                while len != Some(rows) {
                    let (at, header) = self.pull()?;
                    match header {
                        Header::Break if len.is_none() => break,
                        // The first row is read; the others checked.
                        _ if rows == 0 => self.scan_at(Spot::Row, depth + 1, scanned, at, header)?,
                        _ => self.skip(at, header, depth + 1)?,
                    }
                    rows += 1;
                }
                scanned.rows = Some(rows);
                Ok(())
            }
            other => {
                scanned.enter(spot, false);
                self.skip(at, other, depth)
            }
        }
    }
}
