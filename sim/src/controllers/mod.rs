//! What runs behind the API: the simulated kubelet (`kubelet`), the Deployment and ReplicaSet
//! controllers (`deployments`), the bootstrap RBAC policy and ClusterRole aggregation (`policy`),
//! the datasets a server starts with (`dataset`), `--activity` with the churn (`activity`) and
//! what a metrics-server would measure (`metrics`).

pub mod activity;
pub mod dataset;
pub mod deployments;
pub mod kubelet;
pub mod metrics;
pub mod policy;
