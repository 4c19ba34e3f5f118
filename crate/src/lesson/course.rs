//! The built-in course: lessons in the order the course follows, each a JSON file under
//! `crate/lessons/` compiled in, linked by its id (`?lesson=raft`).

use super::Lesson;

/// `(id, JSON text)` of every built-in lesson, in course order.
pub const LESSONS: &[(&str, &str)] = &[("bully", include_str!("../../lessons/01-bully.json"))];

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
