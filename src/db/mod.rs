//! The salsa database: the inputs (ground state) and the handle every query runs on.
//!
//! Ground state is small: one [`SourceFile`] per content path, one [`LangTree`] per language
//! (which files exist there), and the [`Site`] singleton (config, today's date, preview mode,
//! and the file lists that belong to no language). Everything else is a tracked query in
//! `parse`, `derive` and `render`. Only [`workspace`] calls setters.

mod inputs;
pub mod workspace;

pub use inputs::{LangTree, Site, SourceFile};
pub use workspace::Workspace;

use std::sync::{Arc, Mutex};

/// The database. Cloning gives a handle for another thread (salsa's snapshot model).
#[salsa::db]
#[derive(Clone)]
pub struct Database {
    storage: salsa::Storage<Self>,
    executed: Arc<Mutex<Option<Vec<String>>>>,
}

impl Default for Database {
    fn default() -> Self {
        let executed: Arc<Mutex<Option<Vec<String>>>> = Arc::default();
        let log = executed.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind
                && let Some(entries) = log.lock().expect("log lock").as_mut()
            {
                entries.push(format!("{database_key:?}"));
            }
        })));
        Database { storage, executed }
    }
}

impl Database {
    /// Starts recording which queries execute (salsa's `WillExecute` events), so tests can
    /// assert that an edit re-ran only what it had to.
    pub fn record_executions(&self) {
        *self.executed.lock().expect("log lock") = Some(Vec::new());
    }

    /// The queries executed since the last call, as `query_name(Id(..))`.
    pub fn take_executions(&self) -> Vec<String> {
        self.executed
            .lock()
            .expect("log lock")
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

#[salsa::db]
impl salsa::Database for Database {}
