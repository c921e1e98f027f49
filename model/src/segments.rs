//! A long document shown a window at a time, when its text comes in segments that are written
//! only when needed: a list's items ([`ListText`]), or one plain text. The view asks for the
//! rows of a scroll position ([`Segmented::ensure`], then [`Segmented::visible`]); only the
//! segments those rows fall in are written. A segment not written yet has an estimated height
//! (its wire size times the lines per byte of the first segments written), replaced by its real
//! one when it is written: a scroll position past segments never written is approximate, the
//! lines at it are not. Folds are inside a segment (an item folds whole from its first line); a
//! search reads every segment, writing and dropping those not kept, and learns their heights.
//! Written segments beyond [`KEEP_WRITTEN`] are dropped again (their heights stay known).

use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;
use std::sync::Arc;

use crate::highlight::{fold_ends, looks_like_json};
use crate::lines::{find_lines, reveal, shown_lines, Lines};
use crate::list_text::ListText;

/// How many segments keep their text at most (those in view and those with folds stay).
pub const KEEP_WRITTEN: usize = 2000;

/// Lines per byte of wire assumed before any item was written (a pod's YAML: about one line
/// per 40 bytes of its JSON).
const DEFAULT_LINES_PER_BYTE: f64 = 1.0 / 40.0;

/// What a long document's text is made from.
#[derive(Debug, Clone)]
pub enum Source {
    /// One text, written already.
    Text(Arc<String>),
    /// A list, item by item.
    List(Arc<ListText>),
}

/// The same source: the same text or list (by identity; comparing 40 MB texts would cost as
/// much as writing them).
impl PartialEq for Source {
    fn eq(&self, other: &Source) -> bool {
        match (self, other) {
            (Source::Text(a), Source::Text(b)) => Arc::ptr_eq(a, b),
            (Source::List(a), Source::List(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Source {
    fn count(&self) -> usize {
        match self {
            Source::Text(_) => 1,
            Source::List(list) => list.segment_count(),
        }
    }

    fn write(&self, i: usize) -> Arc<String> {
        match self {
            Source::Text(text) => text.clone(),
            Source::List(list) => Arc::new(list.segment(i)),
        }
    }

    fn size(&self, i: usize) -> usize {
        match self {
            Source::Text(text) => text.len(),
            Source::List(list) => list.segment_size(i),
        }
    }

    fn is_item(&self, i: usize) -> bool {
        matches!(self, Source::List(list) if (1..=list.item_count()).contains(&i))
    }

    /// Whether the text is JSON (for highlighting).
    pub fn is_json(&self) -> bool {
        match self {
            Source::Text(text) => looks_like_json(text),
            Source::List(list) => list.is_json(),
        }
    }

    /// The whole text.
    pub fn text(&self) -> Arc<String> {
        match self {
            Source::Text(text) => text.clone(),
            Source::List(list) => Arc::new(list.text()),
        }
    }
}

/// A segment's text and what the view needs of it.
#[derive(Debug)]
struct Written {
    text: Arc<String>,
    /// The length of the text the lines are of (a list segment's final newline left out).
    body_len: usize,
    lines: Lines,
    /// How many lines (the final newline of a list's segment ends its last line; a plain text's
    /// starts an empty one, as `split('\n')` reads it).
    count: usize,
    ends: Vec<Option<usize>>,
    folded: BTreeSet<usize>,
    shown: Vec<usize>,
}

impl Written {
    fn new(text: Arc<String>, list: bool, rich: bool) -> Written {
        let body = if list { text.strip_suffix('\n').unwrap_or(&text) } else { &text };
        let lines = Lines::new(body);
        let count = if list && body.is_empty() { 0 } else { lines.count() };
        let ends = if rich && count > 0 { fold_ends(body) } else { Vec::new() };
        let body_len = body.len();
        let mut written = Written { text, body_len, lines, count, ends, folded: BTreeSet::new(), shown: Vec::new() };
        written.reshow();
        written
    }

    fn reshow(&mut self) {
        self.shown = if self.ends.len() == self.count {
            shown_lines(&self.ends, &self.folded)
        } else {
            (0..self.count).collect()
        };
    }

    fn body(&self) -> &str {
        &self.text[..self.body_len]
    }

    fn line(&self, line: usize) -> &str {
        self.lines.line(self.body(), line)
    }
}

#[derive(Debug)]
enum Segment {
    /// Never written: its height is estimated.
    Unknown,
    /// Written once and dropped: its height is known.
    Counted(usize),
    Written(Box<Written>),
}

/// One line of the document: segment `segment`'s line `line` (both from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LineAt {
    pub segment: usize,
    pub line: usize,
}

/// A document's segments, their heights and folds.
#[derive(Debug)]
pub struct Segmented {
    source: Source,
    rich: bool,
    segments: Vec<Segment>,
    /// Rows shown (lines not folded away) before each segment, and in all (the last entry).
    rows_before: Vec<usize>,
    /// Lines before each segment, folded or not (for line numbers).
    lines_before: Vec<usize>,
    /// Segments of unknown height before each segment (a line number after one is approximate).
    unknown_before: Vec<usize>,
    lines_per_byte: f64,
    /// Lines per item, for items of unknown size (decoded already).
    lines_per_item: Option<f64>,
    learned: bool,
    written: VecDeque<usize>,
    /// Changes whenever a height does.
    version: u64,
}

impl Segmented {
    /// The document of `source`; `rich` (YAML or JSON) enables folds. The segments around a
    /// list's items are written at once (they are short).
    pub fn new(source: Source, rich: bool) -> Segmented {
        let count = source.count();
        let mut doc = Segmented {
            segments: (0..count).map(|_| Segment::Unknown).collect(),
            source,
            rich,
            rows_before: Vec::new(),
            lines_before: Vec::new(),
            unknown_before: Vec::new(),
            lines_per_byte: DEFAULT_LINES_PER_BYTE,
            lines_per_item: None,
            learned: false,
            written: VecDeque::new(),
            version: 0,
        };
        doc.write(0);
        if count > 1 {
            doc.write(count - 1);
        }
        doc.relayout();
        doc
    }

    pub fn source(&self) -> &Source {
        &self.source
    }

    /// Rows shown in all.
    pub fn rows(&self) -> usize {
        self.rows_before.last().copied().unwrap_or(0)
    }

    /// Lines in all, and whether that is exact (every segment's height is known).
    pub fn lines(&self) -> (usize, bool) {
        (self.lines_before.last().copied().unwrap_or(0), self.unknown_before.last().copied().unwrap_or(0) == 0)
    }

    /// How many segments are written now (kept with their text).
    pub fn written_count(&self) -> usize {
        self.segments.iter().filter(|s| matches!(s, Segment::Written(_))).count()
    }

    fn estimate(&self, i: usize) -> usize {
        let size = self.source.size(i);
        let estimate = match self.lines_per_item {
            Some(per_item) if size == 0 => per_item,
            _ => size as f64 * self.lines_per_byte,
        };
        (estimate.round() as usize).max(1)
    }

    fn heights(&self, i: usize) -> (usize, usize) {
        match &self.segments[i] {
            Segment::Unknown => {
                let estimate = self.estimate(i);
                (estimate, estimate)
            }
            Segment::Counted(count) => (*count, *count),
            Segment::Written(written) => (written.shown.len(), written.count),
        }
    }

    /// Changes whenever a height does (line numbers after it may then change).
    pub fn version(&self) -> u64 {
        self.version
    }

    fn relayout(&mut self) {
        self.version += 1;
        let count = self.segments.len();
        let (mut rows, mut lines, mut unknown) = (0, 0, 0);
        self.rows_before = Vec::with_capacity(count + 1);
        self.lines_before = Vec::with_capacity(count + 1);
        self.unknown_before = Vec::with_capacity(count + 1);
        for i in 0..count {
            self.rows_before.push(rows);
            self.lines_before.push(lines);
            self.unknown_before.push(unknown);
            let (shown, all) = self.heights(i);
            rows += shown;
            lines += all;
            unknown += usize::from(matches!(self.segments[i], Segment::Unknown));
        }
        self.rows_before.push(rows);
        self.lines_before.push(lines);
        self.unknown_before.push(unknown);
    }

    fn write(&mut self, i: usize) {
        if matches!(self.segments[i], Segment::Written(_)) {
            return;
        }
        let written = Written::new(self.source.write(i), matches!(self.source, Source::List(_)), self.rich);
        self.segments[i] = Segment::Written(Box::new(written));
        self.written.push_back(i);
    }

    /// Learns the lines per byte (and per item) from the items written so far, once: later
    /// estimates stay put, so a scroll position does not move as items are written.
    fn learn(&mut self) {
        let (mut lines, mut bytes, mut items, mut sized_lines) = (0usize, 0usize, 0usize, 0usize);
        for (i, segment) in self.segments.iter().enumerate() {
            if let (true, Segment::Written(written)) = (self.source.is_item(i), segment) {
                items += 1;
                lines += written.count;
                let size = self.source.size(i);
                if size > 0 {
                    bytes += size;
                    sized_lines += written.count;
                }
            }
        }
        if items == 0 {
            return;
        }
        if bytes > 0 {
            self.lines_per_byte = sized_lines as f64 / bytes as f64;
        }
        self.lines_per_item = Some(lines as f64 / items as f64);
        self.learned = true;
    }

    /// The segment row `row` falls in (the last one past the end).
    fn segment_at(&self, row: usize) -> usize {
        let count = self.segments.len();
        self.rows_before[..count].partition_point(|&before| before <= row).saturating_sub(1).min(count - 1)
    }

    /// Writes the segments rows `rows` fall in (a few times over, as written heights move the
    /// rows). Answers whether anything was written.
    pub fn ensure(&mut self, rows: Range<usize>) -> bool {
        let mut changed = false;
        for _ in 0..12 {
            let end = rows.end.min(self.rows());
            if rows.start >= end || self.segments.is_empty() {
                break;
            }
            let (first, last) = (self.segment_at(rows.start), self.segment_at(end - 1));
            let mut missing: Vec<usize> =
                (first..=last).filter(|&i| !matches!(self.segments[i], Segment::Written(_))).collect();
            if missing.is_empty() {
                break;
            }
            // Until heights are learned, one item at a time: the first estimates are a guess.
            if !self.learned {
                if let Some(item) = missing.iter().position(|&i| self.source.is_item(i)) {
                    missing.truncate(item + 1);
                }
            }
            for i in missing {
                self.write(i);
            }
            if !self.learned {
                self.learn();
            }
            self.relayout();
            changed = true;
        }
        if changed {
            self.evict(rows);
        }
        changed
    }

    fn evict(&mut self, keep: Range<usize>) {
        let end = keep.end.min(self.rows());
        let kept = if keep.start < end { self.segment_at(keep.start)..self.segment_at(end - 1) + 1 } else { 0..0 };
        let mut turns = self.written.len();
        while self.written.len() > KEEP_WRITTEN && turns > 0 {
            turns -= 1;
            let Some(i) = self.written.pop_front() else { break };
            let keep_it = kept.contains(&i)
                || i == 0
                || i + 1 == self.segments.len()
                || matches!(&self.segments[i], Segment::Written(w) if !w.folded.is_empty());
            if keep_it {
                self.written.push_back(i);
                continue;
            }
            if let Segment::Written(written) = &self.segments[i] {
                self.segments[i] = Segment::Counted(written.count);
            }
        }
    }

    /// The lines shown at rows `rows` that are written (all of them after [`Segmented::ensure`]).
    pub fn visible(&self, rows: Range<usize>) -> Vec<LineAt> {
        let end = rows.end.min(self.rows());
        let mut out = Vec::with_capacity(end.saturating_sub(rows.start));
        if rows.start >= end {
            return out;
        }
        let mut segment = self.segment_at(rows.start);
        let mut row = rows.start;
        while row < end && segment < self.segments.len() {
            let before = self.rows_before[segment];
            let after = self.rows_before[segment + 1];
            if let Segment::Written(written) = &self.segments[segment] {
                for r in row.max(before)..after.min(end) {
                    out.push(LineAt { segment, line: written.shown[r - before] });
                }
            }
            row = row.max(after);
            segment += 1;
        }
        out
    }

    fn written(&self, segment: usize) -> Option<&Written> {
        match self.segments.get(segment) {
            Some(Segment::Written(written)) => Some(written),
            _ => None,
        }
    }

    /// A written line's text (empty when not written).
    pub fn line_text(&self, at: LineAt) -> &str {
        self.written(at.segment).map_or("", |w| w.line(at.line))
    }

    /// The last line (of its segment) of the block a line opens, if it opens one.
    pub fn fold_end(&self, at: LineAt) -> Option<usize> {
        self.written(at.segment).and_then(|w| w.ends.get(at.line).copied().flatten())
    }

    pub fn is_folded(&self, at: LineAt) -> bool {
        self.written(at.segment).is_some_and(|w| w.folded.contains(&at.line))
    }

    /// Folds or unfolds the block a line opens.
    pub fn toggle_fold(&mut self, at: LineAt) {
        if let Some(Segment::Written(written)) = self.segments.get_mut(at.segment) {
            if !written.folded.remove(&at.line) {
                written.folded.insert(at.line);
            }
            written.reshow();
            self.relayout();
        }
    }

    /// A line's number from 1, and whether it is exact (no segment of unknown height before it).
    pub fn number(&self, at: LineAt) -> (usize, bool) {
        (self.lines_before[at.segment] + at.line + 1, self.unknown_before[at.segment] == 0)
    }

    /// Appends to `found` the lines of segments `segments` containing `needle` (ignoring ASCII
    /// case). Segments not written are written and dropped; their heights are then known.
    pub fn find(&mut self, needle: &str, segments: Range<usize>, found: &mut Vec<LineAt>) {
        let mut learned = false;
        for segment in segments.start..segments.end.min(self.segments.len()) {
            let mut push = |written: &Written| {
                found.extend(
                    find_lines(written.body(), &written.lines, needle)
                        .into_iter()
                        .filter(|&l| l < written.count)
                        .map(|line| LineAt { segment, line }),
                );
            };
            match &self.segments[segment] {
                Segment::Written(written) => push(written),
                _ => {
                    let list = matches!(self.source, Source::List(_));
                    let written = Written::new(self.source.write(segment), list, false);
                    push(&written);
                    if matches!(self.segments[segment], Segment::Unknown) {
                        self.segments[segment] = Segment::Counted(written.count);
                        learned = true;
                    }
                }
            }
        }
        if learned {
            self.relayout();
        }
    }

    /// How many segments there are.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// Shows a line: writes its segment, unfolds what hides it. Answers its row.
    pub fn reveal(&mut self, at: LineAt) -> usize {
        if at.segment >= self.segments.len() {
            return self.rows();
        }
        self.write(at.segment);
        if let Segment::Written(written) = &mut self.segments[at.segment] {
            reveal(&written.ends, &mut written.folded, at.line);
            written.reshow();
        }
        self.relayout();
        let shown = self.written(at.segment).map_or(0, |w| w.shown.partition_point(|&l| l < at.line));
        self.rows_before[at.segment] + shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list_text::Items;
    use crate::page::TextFormat;
    use kube_wire::codec::json::decode_json;
    use kube_wire::codec::value::Value;
    use kube_wire::watch::lazy::LazyObject;

    /// A list of `n` items `{"name": "item-i", "data": {"k": "v"}}` (four YAML lines each).
    fn list(n: usize, format: TextFormat) -> Source {
        let items: Vec<String> = (0..n).map(|i| format!(r#"{{"name":"item-{i}","data":{{"k":"v"}}}}"#)).collect();
        let text = format!(r#"{{"kind":"XList","metadata":{{}},"items":[{}]}}"#, items.join(","));
        let Value::Object(members) = decode_json(text.as_bytes()).expect("json") else { unreachable!() };
        let body: Arc<[u8]> = Arc::from(text.into_bytes());
        let lazy = kube_wire::watch::lazy_list::read_list(kube_wire::error::Format::Json, body).expect("list");
        let items: Arc<[LazyObject]> = lazy.items.into();
        Source::List(Arc::new(ListText::new(&members, Items::Lazy(items), format, false).expect("list text")))
    }

    fn shown(doc: &Segmented, rows: Range<usize>) -> Vec<String> {
        doc.visible(rows).into_iter().map(|at| doc.line_text(at).to_owned()).collect()
    }

    #[test]
    fn only_the_segments_in_view_are_written_and_the_lines_read_as_the_whole_text() {
        let source = list(1000, TextFormat::Yaml);
        let whole = source.text();
        let mut doc = Segmented::new(source, true);
        assert_eq!(doc.written_count(), 2, "the lines around the items only");
        assert!(doc.ensure(0..20));
        let written = doc.written_count();
        assert!((5..=12).contains(&written), "about the items in 20 rows: {written}");
        let expected: Vec<&str> = whole.lines().take(20).collect();
        assert_eq!(shown(&doc, 0..20), expected);
        assert_eq!(doc.number(doc.visible(0..20)[19]), (20, true));
        // Learned: three lines an item, and every estimate says so.
        assert_eq!(doc.lines(), (whole.lines().count(), false));
        // Far down: the lines there are whole items' lines, in order.
        let far = doc.rows() - 10;
        doc.ensure(far..far + 8);
        let lines = shown(&doc, far..far + 8);
        assert_eq!(lines.len(), 8);
        let named = lines.iter().position(|l| l.starts_with("- name:")).expect("an item's first line");
        let at = whole.lines().position(|l| l == lines[named]).expect("a line of the text") - named;
        assert_eq!(lines, whole.lines().skip(at).take(8).collect::<Vec<_>>());
        assert!(doc.written_count() < 30);
    }

    #[test]
    fn estimates_are_replaced_by_heights_as_items_are_written() {
        // Items of different heights: estimates are off, written heights are not.
        let items: Vec<String> = (0..300)
            .map(|i| match i % 3 {
                0 => format!(r#"{{"n":{i}}}"#),
                1 => format!(r#"{{"n":{i},"a":{{"b":{{"c":[1,2,3,4,5,6]}}}}}}"#),
                _ => format!(r#"{{"n":{i},"s":"{}"}}"#, "x".repeat(200)),
            })
            .collect();
        let text = format!(r#"{{"kind":"XList","metadata":{{}},"items":[{}]}}"#, items.join(","));
        let Value::Object(members) = decode_json(text.as_bytes()).expect("json") else { unreachable!() };
        let body: Arc<[u8]> = Arc::from(text.into_bytes());
        let lazy = kube_wire::watch::lazy_list::read_list(kube_wire::error::Format::Json, body).expect("list");
        let source = Source::List(Arc::new(
            ListText::new(&members, Items::Lazy(lazy.items.into()), TextFormat::Json, false).expect("text"),
        ));
        let whole = source.text();
        let mut doc = Segmented::new(source, true);
        let mut row = 0;
        while row < doc.rows() {
            doc.ensure(row..row + 40);
            row += 40;
        }
        assert_eq!(doc.lines(), (whole.split('\n').count(), true), "every height known once every item was seen");
        let all = doc.rows();
        assert_eq!(shown(&doc, 0..all), whole.split('\n').collect::<Vec<_>>());
    }

    #[test]
    fn folds_are_inside_a_segment_and_an_item_folds_whole() {
        let mut doc = Segmented::new(list(3, TextFormat::Yaml), true);
        doc.ensure(0..100);
        let rows = doc.rows();
        let first_item = doc.visible(0..rows).into_iter().find(|at| at.segment == 1).expect("item 0");
        assert_eq!(doc.line_text(first_item), "- name: item-0");
        assert_eq!(doc.fold_end(first_item), Some(2));
        doc.toggle_fold(first_item);
        assert!(doc.is_folded(first_item));
        assert_eq!(doc.rows(), rows - 2);
        let lines = shown(&doc, 0..doc.rows());
        assert_eq!(lines.iter().filter(|l| *l == "  data:").count(), 2, "item 0's block is hidden: {lines:?}");
        // A search result inside the fold reveals it.
        let mut found = Vec::new();
        doc.find("item-0", 0..doc.segment_count(), &mut found);
        assert_eq!(found, [first_item]);
        let mut found = Vec::new();
        doc.find("K: V", 0..doc.segment_count(), &mut found);
        assert_eq!(found.len(), 3);
        let row = doc.reveal(found[0]);
        assert!(!doc.is_folded(first_item));
        assert_eq!(doc.visible(row..row + 1), [found[0]]);
    }

    #[test]
    fn a_search_reads_every_item_and_learns_their_heights_without_keeping_them() {
        let source = list(500, TextFormat::Json);
        let whole = source.text();
        let mut doc = Segmented::new(source, true);
        doc.ensure(0..30);
        let before = doc.written_count();
        let mut found = Vec::new();
        doc.find("ITEM-49", 0..doc.segment_count(), &mut found);
        // item-49 and item-490..499
        assert_eq!(found.len(), 11);
        assert_eq!(doc.written_count(), before, "searched items are not kept");
        assert_eq!(doc.lines(), (whole.split('\n').count(), true));
        // item-49, item-490, item-491, ...
        let row = doc.reveal(found[2]);
        doc.ensure(row..row + 1);
        assert!(doc.line_text(doc.visible(row..row + 1)[0]).contains("item-491"));
        let (number, exact) = doc.number(found[2]);
        assert!(exact);
        assert!(whole.split('\n').nth(number - 1).expect("line").contains("item-491"));
    }

    #[test]
    fn written_segments_beyond_the_bound_are_dropped_but_their_heights_stay() {
        let source = list(KEEP_WRITTEN + 600, TextFormat::Yaml);
        let mut doc = Segmented::new(source, true);
        let mut row = 0;
        while row < doc.rows() {
            doc.ensure(row..row + 90);
            row += 90;
        }
        assert!(doc.written_count() <= KEEP_WRITTEN + 40, "{}", doc.written_count());
        assert_eq!(doc.lines(), (3 * (KEEP_WRITTEN + 600) + 3, true));
        // Back to the top: written again, the same lines.
        doc.ensure(0..10);
        assert_eq!(shown(&doc, 0..4), ["kind: XList", "metadata: {}", "items:", "- name: item-0"]);
    }

    #[test]
    fn a_plain_text_is_one_segment_read_as_split_reads_it() {
        let text = Arc::new("a:\n  b: 1\nc: 2\n".to_owned());
        let mut doc = Segmented::new(Source::Text(text.clone()), true);
        assert_eq!(doc.rows(), 4);
        doc.ensure(0..4);
        assert_eq!(shown(&doc, 0..4), ["a:", "  b: 1", "c: 2", ""]);
        let mut found = Vec::new();
        doc.find("c:", 0..1, &mut found);
        assert_eq!(found, [LineAt { segment: 0, line: 2 }]);
        assert_eq!(doc.lines(), (4, true));
        assert!(Arc::ptr_eq(&doc.source().text(), &text));
    }
}
