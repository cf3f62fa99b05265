//! Long-running calls as MCP tasks (SPEC §14): where they are kept.

pub(crate) mod store;

pub use store::{
    InMemoryTaskStore, Lease, TaskEvent, TaskListener, TaskRecord, TaskSignal, TaskStore,
    TaskStoreError,
};
