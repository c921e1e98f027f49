//! The rows of a live grid (a watched collection), patched in place as objects change instead of
//! rebuilt: a change to an object replaces its row where it stands, an added or removed object
//! moves the rows after it, and only a large batch of additions and removals sorts (the rows
//! stay mostly in order, so that sort is close to linear). A redraw of a watch with 10,000
//! objects then costs what changed, not 10,000 rows.
//!
//! Invariants: the rows are in display order, by namespace, name, then key, each key once; the
//! caller hands the same rows vector (a [`Grid`](crate::cells::Grid)'s) to every call and
//! changes nothing in it but rows' `highlight`, through [`LiveRows::row_mut`].

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use crate::cells::Row;

/// Beyond this many additions, removals or moves in one batch, the rows are sorted once instead
/// of each being inserted or removed where it goes (each of those moves the rows after it).
const BULK: usize = 32;

/// One change to the rows: an object's row (new or replacing its previous one), or its removal.
#[derive(Debug, Clone, PartialEq)]
pub enum RowPatch<K> {
    Upsert(K, Row),
    Remove(K),
}

/// What a batch of patches did, for the caller's accounting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Patched {
    /// Rows replaced where they stood.
    pub in_place: usize,
    /// Rows added, removed or moved.
    pub moved: usize,
    /// Whether the batch was applied by sorting the rows once.
    pub sorted: bool,
}

/// The order and place of each row of a live grid, by the key of its object.
#[derive(Debug, Clone)]
pub struct LiveRows<K> {
    /// Parallel to the rows: each row's key.
    keys: Vec<K>,
    /// The namespace and name each key's row sorts by.
    place: HashMap<K, (Option<String>, String)>,
}

impl<K> Default for LiveRows<K> {
    fn default() -> Self {
        LiveRows { keys: Vec::new(), place: HashMap::new() }
    }
}

impl<K: Ord + Hash + Clone> LiveRows<K> {
    pub fn new() -> Self {
        LiveRows::default()
    }

    /// How many rows there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys in display order.
    pub fn keys(&self) -> &[K] {
        &self.keys
    }

    /// Replaces every row by `all` (in any order; a repeated key keeps its last row).
    pub fn replace_all(&mut self, rows: &mut Vec<Row>, all: Vec<(K, Row)>) {
        let mut last: HashMap<K, usize> = HashMap::with_capacity(all.len());
        for (i, (key, _)) in all.iter().enumerate() {
            last.insert(key.clone(), i);
        }
        let mut pairs: Vec<(K, Row)> = all
            .into_iter()
            .enumerate()
            .filter(|(i, (key, _))| last.get(key) == Some(i))
            .map(|(_, pair)| pair)
            .collect();
        pairs.sort_by(|a, b| order(&a.1, &a.0, &b.1, &b.0));
        self.place = pairs.iter().map(|(key, row)| (key.clone(), (row.namespace.clone(), row.name.clone()))).collect();
        let (keys, sorted): (Vec<K>, Vec<Row>) = pairs.into_iter().unzip();
        self.keys = keys;
        *rows = sorted;
    }

    /// Where the row of `key` stands in `rows`.
    pub fn position(&self, rows: &[Row], key: &K) -> Option<usize> {
        let (namespace, name) = self.place.get(key)?;
        let at = self.lower_bound(rows, namespace.as_deref(), name, key);
        (self.keys.get(at) == Some(key)).then_some(at)
    }

    /// The row of `key`, to change what does not affect its place (its highlight).
    pub fn row_mut<'r>(&self, rows: &'r mut [Row], key: &K) -> Option<&'r mut Row> {
        let at = self.position(rows, key)?;
        rows.get_mut(at)
    }

    /// Applies `patches` in order: a row whose place is unchanged is replaced where it stands;
    /// additions, removals and moves are inserted where they go, or (many of them) sorted in.
    pub fn apply(&mut self, rows: &mut Vec<Row>, patches: Vec<RowPatch<K>>) -> Patched {
        let mut patched = Patched::default();
        // Patches that add, remove or move rows, in order; once a key has one, its later patches
        // follow it there so that they apply after it.
        let mut structural: Vec<RowPatch<K>> = Vec::new();
        let mut deferred: HashSet<K> = HashSet::new();
        for patch in patches {
            match patch {
                RowPatch::Upsert(key, row) if !deferred.contains(&key) => {
                    let same_place = self
                        .place
                        .get(&key)
                        .is_some_and(|(namespace, name)| *namespace == row.namespace && *name == row.name);
                    match self.position(rows, &key).filter(|_| same_place) {
                        Some(at) => {
                            rows[at] = row;
                            patched.in_place += 1;
                        }
                        None => {
                            deferred.insert(key.clone());
                            structural.push(RowPatch::Upsert(key, row));
                        }
                    }
                }
                RowPatch::Remove(key) if !deferred.contains(&key) && !self.place.contains_key(&key) => {}
                other => {
                    let key = match &other {
                        RowPatch::Upsert(key, _) | RowPatch::Remove(key) => key.clone(),
                    };
                    deferred.insert(key);
                    structural.push(other);
                }
            }
        }
        patched.moved = structural.len();
        if structural.len() > BULK {
            patched.sorted = true;
            self.sort_in(rows, structural);
        } else {
            for patch in structural {
                match patch {
                    RowPatch::Upsert(key, row) => {
                        self.remove(rows, &key);
                        self.insert(rows, key, row);
                    }
                    RowPatch::Remove(key) => self.remove(rows, &key),
                }
            }
        }
        patched
    }

    fn remove(&mut self, rows: &mut Vec<Row>, key: &K) {
        if let Some(at) = self.position(rows, key) {
            rows.remove(at);
            self.keys.remove(at);
        }
        self.place.remove(key);
    }

    fn insert(&mut self, rows: &mut Vec<Row>, key: K, row: Row) {
        let at = self.lower_bound(rows, row.namespace.as_deref(), &row.name, &key).min(rows.len());
        self.place.insert(key.clone(), (row.namespace.clone(), row.name.clone()));
        rows.insert(at, row);
        self.keys.insert(at, key);
    }

    /// Applies many structural patches at once: the last patch of each key decides, and the rows
    /// are sorted once (mostly in order already, which the stable sort finds in linear time).
    fn sort_in(&mut self, rows: &mut Vec<Row>, structural: Vec<RowPatch<K>>) {
        let mut outcome: HashMap<K, Option<Row>> = HashMap::with_capacity(structural.len());
        for patch in structural {
            match patch {
                RowPatch::Upsert(key, row) => outcome.insert(key, Some(row)),
                RowPatch::Remove(key) => outcome.insert(key, None),
            };
        }
        let keys = std::mem::take(&mut self.keys);
        let mut pairs: Vec<(K, Row)> =
            keys.into_iter().zip(std::mem::take(rows)).filter(|(key, _)| !outcome.contains_key(key)).collect();
        for (key, row) in outcome {
            match row {
                Some(row) => {
                    self.place.insert(key.clone(), (row.namespace.clone(), row.name.clone()));
                    pairs.push((key, row));
                }
                None => {
                    self.place.remove(&key);
                }
            }
        }
        pairs.sort_by(|a, b| order(&a.1, &a.0, &b.1, &b.0));
        let (keys, sorted): (Vec<K>, Vec<Row>) = pairs.into_iter().unzip();
        self.keys = keys;
        *rows = sorted;
    }

    /// The first index whose row sorts at or after (namespace, name, key).
    fn lower_bound(&self, rows: &[Row], namespace: Option<&str>, name: &str, key: &K) -> usize {
        let (mut low, mut high) = (0, self.keys.len().min(rows.len()));
        while low < high {
            let middle = low + (high - low) / 2;
            let row = &rows[middle];
            let ordering =
                (row.namespace.as_deref(), row.name.as_str(), &self.keys[middle]).cmp(&(namespace, name, key));
            if ordering == Ordering::Less {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low
    }
}

/// Display order: namespace (cluster-scoped first), name, then key.
fn order<K: Ord>(a: &Row, a_key: &K, b: &Row, b_key: &K) -> Ordering {
    (a.namespace.as_deref(), a.name.as_str(), a_key).cmp(&(b.namespace.as_deref(), b.name.as_str(), b_key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(namespace: &str, name: &str, version: &str) -> Row {
        Row {
            namespace: (!namespace.is_empty()).then(|| namespace.to_string()),
            name: name.to_string(),
            uid: Some(format!("u-{namespace}-{name}")),
            resource_version: Some(version.to_string()),
            cells: Vec::new(),
            highlight: false,
        }
    }

    /// The rows as `namespace/name@version`, and a check that keys and rows agree.
    #[track_caller]
    fn shown(live: &LiveRows<u32>, rows: &[Row]) -> Vec<String> {
        assert_eq!(live.len(), rows.len());
        for (at, key) in live.keys().iter().enumerate() {
            assert_eq!(live.position(rows, key), Some(at), "key {key} is found where it stands");
        }
        rows.iter()
            .map(|r| {
                format!(
                    "{}/{}@{}",
                    r.namespace.as_deref().unwrap_or(""),
                    r.name,
                    r.resource_version.as_deref().unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn rows_start_sorted_by_namespace_then_name_then_key() {
        let mut live = LiveRows::new();
        let mut rows = Vec::new();
        live.replace_all(
            &mut rows,
            vec![(3, row("b", "x", "1")), (1, row("a", "y", "1")), (2, row("a", "x", "1")), (4, row("", "z", "1"))],
        );
        assert_eq!(shown(&live, &rows), ["/z@1", "a/x@1", "a/y@1", "b/x@1"]);
        assert_eq!(live.keys(), [4, 2, 1, 3]);
        // A repeated key keeps its last row.
        live.replace_all(&mut rows, vec![(1, row("a", "x", "1")), (1, row("a", "x", "2"))]);
        assert_eq!(shown(&live, &rows), ["a/x@2"]);
    }

    #[test]
    fn a_changed_object_is_replaced_where_it_stands() {
        let mut live = LiveRows::new();
        let mut rows = Vec::new();
        live.replace_all(&mut rows, (0..100).map(|i| (i, row("ns", &format!("p-{i:03}"), "1"))).collect());
        let patched = live.apply(&mut rows, vec![RowPatch::Upsert(42, row("ns", "p-042", "2"))]);
        assert_eq!(patched, Patched { in_place: 1, moved: 0, sorted: false });
        assert_eq!(rows[42].resource_version.as_deref(), Some("2"));
        assert_eq!(shown(&live, &rows).len(), 100);
    }

    #[test]
    fn added_removed_and_renamed_rows_go_where_they_sort() {
        let mut live = LiveRows::new();
        let mut rows = Vec::new();
        live.replace_all(&mut rows, vec![(1, row("a", "b", "1")), (2, row("a", "d", "1"))]);
        let patched = live.apply(
            &mut rows,
            vec![
                RowPatch::Upsert(3, row("a", "c", "2")),
                RowPatch::Upsert(4, row("a", "a", "2")),
                RowPatch::Remove(2),
                RowPatch::Remove(99),
                // A key whose row sorts elsewhere now moves.
                RowPatch::Upsert(1, row("b", "b", "3")),
            ],
        );
        assert_eq!(patched, Patched { in_place: 0, moved: 4, sorted: false });
        assert_eq!(shown(&live, &rows), ["a/a@2", "a/c@2", "b/b@3"]);
        assert_eq!(live.position(&rows, &2), None);
        assert_eq!(live.position(&rows, &99), None);
    }

    #[test]
    fn later_patches_of_a_key_apply_after_its_earlier_ones() {
        let mut live = LiveRows::new();
        let mut rows = Vec::new();
        live.replace_all(&mut rows, vec![(1, row("a", "a", "1"))]);
        // Removed, then back with the same place: it is there at its last version.
        live.apply(&mut rows, vec![RowPatch::Remove(1), RowPatch::Upsert(1, row("a", "a", "2"))]);
        assert_eq!(shown(&live, &rows), ["a/a@2"]);
        // Changed in place, then removed: gone.
        live.apply(&mut rows, vec![RowPatch::Upsert(1, row("a", "a", "3")), RowPatch::Remove(1)]);
        assert!(shown(&live, &rows).is_empty());
    }

    #[test]
    fn a_large_batch_is_sorted_in_once_with_the_same_result_as_one_by_one() {
        let initial: Vec<(u32, Row)> = (0..200).map(|i| (i, row("ns", &format!("p-{i:03}"), "1"))).collect();
        let patches: Vec<RowPatch<u32>> = (0..200)
            .filter_map(|i| match i % 5 {
                0 => Some(RowPatch::Remove(i)),
                1 => Some(RowPatch::Upsert(i + 1000, row("nt", &format!("q-{i:03}"), "2"))),
                2 => Some(RowPatch::Upsert(i, row("ns", &format!("p-{i:03}"), "3"))),
                3 => Some(RowPatch::Upsert(i, row("a", &format!("moved-{i:03}"), "4"))),
                _ => None,
            })
            .collect();
        let (mut bulk, mut bulk_rows) = (LiveRows::new(), Vec::new());
        bulk.replace_all(&mut bulk_rows, initial.clone());
        let patched = bulk.apply(&mut bulk_rows, patches.clone());
        assert!(patched.sorted, "{patched:?}");
        assert_eq!((patched.in_place, patched.moved), (40, 120));
        let (mut single, mut single_rows) = (LiveRows::new(), Vec::new());
        single.replace_all(&mut single_rows, initial);
        for patch in patches {
            assert!(!single.apply(&mut single_rows, vec![patch]).sorted);
        }
        assert_eq!(shown(&bulk, &bulk_rows), shown(&single, &single_rows));
        assert_eq!(bulk.keys(), single.keys());
        assert_eq!(bulk_rows.len(), 200 - 40 + 40);
        assert!(bulk_rows.first().is_some_and(|r| r.name == "moved-003"));
    }

    #[test]
    fn a_rows_highlight_is_changed_through_its_key() {
        let mut live = LiveRows::new();
        let mut rows = Vec::new();
        live.replace_all(&mut rows, vec![(7, row("a", "a", "1")), (8, row("a", "b", "1"))]);
        if let Some(row) = live.row_mut(&mut rows, &8) {
            row.highlight = true;
        }
        assert!(rows[1].highlight && !rows[0].highlight);
        assert!(live.row_mut(&mut rows, &9).is_none());
    }
}
