//! `RedisStore` (SPEC §14B) against a real `redis-server`: the shared one `.ci/run` starts
//! (`TOOLNEXUS_TEST_REDIS_URL`), and for the faults one of each test's own, stopped and
//! started again mid-run. Two stateless HTTP replicas in one process share it.
#![cfg(all(feature = "redis", feature = "mcp-http"))]

mod faults;
mod redis_server;
mod replicas;
mod store;
