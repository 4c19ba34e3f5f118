//! The election protocols, one module each. Every module doc explains its algorithm and the seed
//! section it follows.

pub mod bully;
pub mod chang_roberts;
pub mod raft;

use crate::scenario::{path_error, Scenario, ScenarioError};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Reads a protocol's `params` object into its parameter struct, naming the field on error.
pub(crate) fn read_params<T: DeserializeOwned>(scenario: &Scenario) -> Result<T, ScenarioError> {
    let value = Value::Object(scenario.params.clone());
    serde_path_to_error::deserialize(&value).map_err(|e| path_error(e, "params"))
}
