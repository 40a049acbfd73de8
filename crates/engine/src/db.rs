//! The salsa database: the inputs (ground state) and the handle every query runs on.
//!
//! Ground state is small: one `SourceFile` per content path, one `LangTree` per language
//! (which files exist there), and the `Globals` singleton (config, today's date, preview mode,
//! the file lists that belong to no language, and the API paths published by earlier builds). Everything else is a tracked query in
//! `parse`, `derive` and `render`. Only [`workspace`](crate::workspace) calls setters.

mod inputs;

pub use inputs::Preview;

// The inputs stay inside the crate: only `workspace` sets them and only queries read them.
pub(crate) use inputs::{
    Globals, Index, LangIndex, LangTree, SeriesMembers, SourceFile, TagMembers,
};

use std::sync::{Arc, Mutex};

/// The database. Cloning gives a handle for another thread (salsa's snapshot model).
#[salsa::db]
#[derive(Clone, Default)]
pub struct Database {
    storage: salsa::Storage<Self>,
    /// Present only in a [`Database::recording`] database: salsa calls an event callback for
    /// every query it looks at, which costs time in a normal build.
    executed: Option<Arc<Mutex<Vec<String>>>>,
    /// Present only in a recording database: how many memos salsa validated without running
    /// them (`DidValidateMemoizedValue`), the cost of a revision that re-runs nothing.
    validated: Option<Arc<Mutex<Vec<String>>>>,
}

impl Database {
    /// A database that records which queries execute (salsa's `WillExecute` events), so tests
    /// can assert that an edit re-ran only what it had to.
    pub fn recording() -> Database {
        let executed: Arc<Mutex<Vec<String>>> = Arc::default();
        let validated: Arc<Mutex<Vec<String>>> = Arc::default();
        let (log, checked) = (executed.clone(), validated.clone());
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            match event.kind {
                salsa::EventKind::WillExecute { database_key } => log
                    .lock()
                    .expect("log lock")
                    .push(format!("{database_key:?}")),
                salsa::EventKind::DidValidateMemoizedValue { database_key } => checked
                    .lock()
                    .expect("log lock")
                    .push(format!("{database_key:?}")),
                _ => {}
            }
        })));
        Database {
            storage,
            executed: Some(executed),
            validated: Some(validated),
        }
    }

    /// The memoised values salsa validated (found still valid, by durability or by walking
    /// their dependencies) since the last call, as `query_name(Id(..))`: the cost of a revision
    /// beyond what it re-ran. Always empty for a database that is not [`Database::recording`].
    pub fn take_validations(&self) -> Vec<String> {
        self.validated
            .as_ref()
            .map(|log| std::mem::take(&mut *log.lock().expect("log lock")))
            .unwrap_or_default()
    }

    /// The queries executed since the last call, as `query_name(Id(..))`. Always empty for a
    /// database that is not [`Database::recording`].
    pub fn take_executions(&self) -> Vec<String> {
        self.executed
            .as_ref()
            .map(|log| std::mem::take(&mut *log.lock().expect("log lock")))
            .unwrap_or_default()
    }
}

#[salsa::db]
impl salsa::Database for Database {}
