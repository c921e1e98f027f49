//! What runs behind the API: the simulated kubelet (`kubelet`), the Deployment and ReplicaSet
//! controllers (`deployments`), the bootstrap RBAC policy and ClusterRole aggregation (`policy`),
//! the datasets a server starts with (`dataset`) and `--activity` with the churn (`activity`).

pub mod activity;
pub mod control;
pub mod cronjobs;
pub mod daemonsets;
pub mod dataset;
pub mod deployments;
pub mod disruption;
pub mod jobs;
pub mod kubelet;
pub mod manager;
pub mod policy;
pub mod revisions;
pub mod scheduler;
pub mod statefulsets;
