//! The Bully player's entry: the player built with the `family-bully` feature (the Bully family's
//! algorithms only), chosen by `index.html` for Bully links; it hands anything else to the full
//! player (`src/bundle.rs`).

fn main() {
    election_lab_www::start();
}
