//! The built-in course: lessons in the order the course follows, each a JSON file under
//! `crate/lessons/` compiled in, linked by its id (`?lesson=raft`).

use super::Lesson;

/// `(id, JSON text)` of every built-in lesson, in course order.
pub const LESSONS: &[(&str, &str)] = &[
    ("bully", include_str!("../../lessons/01-bully.json")),
    ("chang-roberts", include_str!("../../lessons/02-chang-roberts.json")),
    ("hirschberg-sinclair", include_str!("../../lessons/03-hirschberg-sinclair.json")),
    ("split-brain", include_str!("../../lessons/04-split-brain.json")),
    ("raft", include_str!("../../lessons/05-raft.json")),
    ("zookeeper", include_str!("../../lessons/06-zookeeper.json")),
    ("paxos", include_str!("../../lessons/07-paxos.json")),
    ("leases", include_str!("../../lessons/08-leases.json")),
    ("gossip-dht", include_str!("../../lessons/09-gossip-dht.json")),
    ("impossibility", include_str!("../../lessons/10-impossibility.json")),
];

/// The ids, in course order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    LESSONS.iter().map(|(id, _)| *id)
}

/// Every built-in lesson, parsed (a built-in lesson that does not parse is a bug the tests catch).
pub fn all() -> Vec<Lesson> {
    LESSONS.iter().filter_map(|(_, json)| Lesson::from_json(json).ok()).collect()
}

/// The built-in lesson `id`.
pub fn find(id: &str) -> Option<Lesson> {
    LESSONS.iter().find(|(i, _)| *i == id).and_then(|(_, json)| Lesson::from_json(json).ok())
}

/// The JSON text of the built-in lesson `id`.
pub fn source(id: &str) -> Option<&'static str> {
    LESSONS.iter().find(|(i, _)| *i == id).map(|(_, json)| *json)
}
