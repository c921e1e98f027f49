//! A long text read as lines for a virtualized view: where each line starts, which lines folds
//! leave on screen, which window of them a scroll position shows, and which lines a search
//! matches. Nothing here is proportional to more than the text once (a fold or a search walks
//! the lines once; a scroll is arithmetic).

use std::collections::BTreeSet;
use std::ops::Range;

/// The lines of a text: byte offsets where each starts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lines {
    starts: Vec<usize>,
    len: usize,
}

impl Lines {
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1));
        Lines { starts, len: text.len() }
    }

    /// How many lines (a text ending in a newline has an empty last line, as `split('\n')` says).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `i` of `text` (the text these lines were made from), without its newline.
    pub fn line<'t>(&self, text: &'t str, i: usize) -> &'t str {
        let start = self.starts.get(i).copied().unwrap_or(self.len);
        let end = self.starts.get(i + 1).map_or(self.len, |next| next - 1);
        text.get(start..end.max(start)).unwrap_or("")
    }
}

/// The lines left on screen when the lines in `folded` are folded: a folded line `i` with
/// `ends[i] == Some(end)` hides `i+1..=end`. In order, each once.
pub fn shown_lines(ends: &[Option<usize>], folded: &BTreeSet<usize>) -> Vec<usize> {
    let mut shown = Vec::with_capacity(ends.len());
    let mut i = 0;
    while i < ends.len() {
        shown.push(i);
        i = match ends[i] {
            Some(end) if folded.contains(&i) && end > i => end + 1,
            _ => i + 1,
        };
    }
    shown
}

/// Unfolds every fold that hides `line`.
pub fn reveal(ends: &[Option<usize>], folded: &mut BTreeSet<usize>, line: usize) {
    folded.retain(|&start| !(start < line && ends.get(start).copied().flatten().is_some_and(|end| line <= end)));
}

/// The shown rows a viewport `height` pixels tall scrolled `top` pixels down shows, with
/// `overscan` rows more on each side, of `count` rows `row_height` pixels each.
pub fn window(top: f64, height: f64, row_height: f64, count: usize, overscan: usize) -> Range<usize> {
    if count == 0 || row_height <= 0.0 {
        return 0..0;
    }
    let first = (top.max(0.0) / row_height).floor() as usize;
    let visible = (height.max(0.0) / row_height).ceil() as usize + 1;
    let start = first.saturating_sub(overscan).min(count);
    let end = first.saturating_add(visible).saturating_add(overscan).min(count);
    start..end
}

/// The lines that contain `needle`, ignoring ASCII case (empty: none).
pub fn find_lines(text: &str, lines: &Lines, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let needle = needle.to_ascii_lowercase();
    let haystack = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = haystack.get(from..).and_then(|rest| rest.find(&needle)) {
        let at = from + at;
        let line = lines.starts.partition_point(|&start| start <= at) - 1;
        found.push(line);
        // The next match on a later line.
        from = lines.starts.get(line + 1).copied().unwrap_or(text.len() + 1);
        if from > text.len() {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_and_read_back_without_their_newlines() {
        let text = "a: 1\nb:\n  c: 2\n";
        let lines = Lines::new(text);
        assert_eq!(lines.count(), text.split('\n').count());
        let read: Vec<&str> = (0..lines.count()).map(|i| lines.line(text, i)).collect();
        assert_eq!(read, text.split('\n').collect::<Vec<_>>());
        assert_eq!(lines.line(text, 99), "");
        assert_eq!(Lines::new("").count(), 1);
    }

    #[test]
    fn folds_hide_their_blocks_and_reveal_unfolds_what_hides_a_line() {
        // 0 a:   1 b:   2 c   3 d   4 e
        let ends = [Some(3), Some(3), None, None, None];
        let mut folded = BTreeSet::from([1]);
        assert_eq!(shown_lines(&ends, &folded), [0, 1, 4]);
        folded.insert(0);
        assert_eq!(shown_lines(&ends, &folded), [0, 4]);
        reveal(&ends, &mut folded, 2);
        assert!(folded.is_empty(), "both folds hid line 2");
        let mut folded = BTreeSet::from([0, 1]);
        reveal(&ends, &mut folded, 1);
        assert_eq!(folded, BTreeSet::from([1]), "line 1 stays folded: it is shown, its block is not");
        assert_eq!(shown_lines(&ends, &BTreeSet::new()), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_scroll_position_shows_a_window_of_rows_with_overscan() {
        assert_eq!(window(0.0, 100.0, 20.0, 1000, 5), 0..11);
        assert_eq!(window(2000.0, 100.0, 20.0, 1000, 5), 95..111);
        assert_eq!(window(19_990.0, 100.0, 20.0, 1000, 5), 994..1000);
        assert_eq!(window(50_000.0, 100.0, 20.0, 1000, 5), 1000..1000);
        assert_eq!(window(-5.0, 100.0, 20.0, 0, 5), 0..0);
    }

    #[test]
    fn a_search_finds_each_matching_line_once_ignoring_case() {
        let text = "Key: a\nother\nkey: KEY\nlast key";
        let lines = Lines::new(text);
        assert_eq!(find_lines(text, &lines, "key"), [0, 2, 3]);
        assert_eq!(find_lines(text, &lines, "KEY: k"), [2]);
        assert_eq!(find_lines(text, &lines, ""), Vec::<usize>::new());
        assert_eq!(find_lines(text, &lines, "absent"), Vec::<usize>::new());
        assert_eq!(find_lines("a\n", &Lines::new("a\n"), "\n"), [0]);
    }
}
