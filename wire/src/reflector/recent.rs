//! The (object, resourceVersion) pairs the reflector applied last: an event whose version was
//! applied already (a resumed watch replays some) is recognised and ignored, within a bounded
//! memory.

use std::collections::{HashMap, VecDeque};

use crate::reflector::store::ObjectKey;
use crate::view::list::ResourceVersion;

/// How many applied (key, resourceVersion) pairs are remembered to recognise redeliveries.
const RECENT_VERSIONS: usize = 4096;

/// The most recently applied object versions, oldest first. Looked up by key without copying it:
/// each key's versions in the order applied.
#[derive(Debug, Clone, Default)]
pub(crate) struct RecentVersions {
    order: VecDeque<ObjectKey>,
    versions: HashMap<ObjectKey, VecDeque<ResourceVersion>>,
}

impl RecentVersions {
    pub(crate) fn contains(&self, key: &ObjectKey, version: &ResourceVersion) -> bool {
        self.versions.get(key).is_some_and(|versions| versions.contains(version))
    }

    pub(crate) fn insert(&mut self, key: ObjectKey, version: ResourceVersion) {
        if self.contains(&key, &version) {
            return;
        }
        match self.versions.get_mut(&key) {
            Some(versions) => versions.push_back(version),
            None => {
                self.versions.insert(key.clone(), VecDeque::from([version]));
            }
        }
        self.order.push_back(key);
        while self.order.len() > RECENT_VERSIONS {
            let Some(oldest) = self.order.pop_front() else { break };
            // The oldest remembered pair is its key's first version.
            if let Some(versions) = self.versions.get_mut(&oldest) {
                versions.pop_front();
                if versions.is_empty() {
                    self.versions.remove(&oldest);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_versions_remember_the_last_pairs_applied_and_forget_the_oldest_first() {
        let key = |n: usize| ObjectKey::Uid(format!("u-{n}"));
        let rv = |n: usize| ResourceVersion::new(n.to_string());
        let mut recent = RecentVersions::default();
        recent.insert(key(0), rv(1));
        recent.insert(key(0), rv(2));
        recent.insert(key(0), rv(1));
        assert_eq!(recent.order.len(), 2, "a pair already remembered is not remembered twice");
        assert!(recent.contains(&key(0), &rv(1)) && recent.contains(&key(0), &rv(2)));
        assert!(!recent.contains(&key(0), &rv(3)) && !recent.contains(&key(1), &rv(1)));
        for n in 1..RECENT_VERSIONS {
            recent.insert(key(n), rv(n + 10));
        }
        assert_eq!(recent.order.len(), RECENT_VERSIONS);
        assert!(!recent.contains(&key(0), &rv(1)), "the oldest pair went first");
        assert!(recent.contains(&key(0), &rv(2)) && recent.contains(&key(1), &rv(11)));
        recent.insert(key(1), rv(12));
        assert!(!recent.contains(&key(0), &rv(2)));
        assert!(!recent.versions.contains_key(&key(0)), "a key without remembered versions is dropped");
        assert!(recent.contains(&key(1), &rv(11)) && recent.contains(&key(1), &rv(12)));
    }
}
