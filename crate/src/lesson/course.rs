//! The built-in course: lessons in the order the course follows, each a JSON file under
//! `crate/lessons/` compiled in, linked by its id (`?lesson=raft`). The ids are read from the
//! files themselves (a lesson's id is often its algorithm's, which only the registry names).

use super::Lesson;
use serde_json::Value;

/// The JSON text of every built-in lesson, in course order.
pub const LESSONS: &[&str] = &[
    include_str!("../../lessons/01-bully.json"),
    include_str!("../../lessons/02-chang-roberts.json"),
    include_str!("../../lessons/03-hirschberg-sinclair.json"),
    include_str!("../../lessons/04-split-brain.json"),
    include_str!("../../lessons/05-raft.json"),
    include_str!("../../lessons/06-zookeeper.json"),
    include_str!("../../lessons/07-paxos.json"),
    include_str!("../../lessons/08-leases.json"),
    include_str!("../../lessons/09-gossip-dht.json"),
    include_str!("../../lessons/10-impossibility.json"),
];

fn id_of(json: &str) -> Option<String> {
    serde_json::from_str::<Value>(json).ok()?.get("id")?.as_str().map(str::to_string)
}

/// The ids, in course order.
pub fn ids() -> Vec<String> {
    LESSONS.iter().filter_map(|json| id_of(json)).collect()
}

/// Every built-in lesson, parsed (a built-in lesson that does not parse is a bug the tests catch).
pub fn all() -> Vec<Lesson> {
    LESSONS.iter().filter_map(|json| Lesson::from_json(json).ok()).collect()
}

/// The JSON text of the built-in lesson `id`.
pub fn source(id: &str) -> Option<&'static str> {
    LESSONS.iter().copied().find(|json| id_of(json).as_deref() == Some(id))
}

/// The built-in lesson `id`.
pub fn find(id: &str) -> Option<Lesson> {
    source(id).and_then(|json| Lesson::from_json(json).ok())
}
