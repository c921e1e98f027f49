//! What runs behind the API: the simulated kubelet (`kubelet`) and scheduler (`scheduler`), the
//! Deployment and ReplicaSet controllers (`deployments`, in step with the writes), and, run by
//! the controller manager (`manager`) on the store's changes, the StatefulSet (`statefulsets`),
//! DaemonSet (`daemonsets`), Job (`jobs`), CronJob (`cronjobs`), disruption (`disruption`) and
//! EndpointSlice (`endpointslices`) controllers, with what they share (`control`, `revisions`, the Event recorder `recorder`); the bootstrap RBAC policy and
//! ClusterRole aggregation (`policy`), the datasets a server starts with (`dataset`, with the
//! demo's workloads in `workloads`), `--activity` with the churn (`activity`) and what a
//! metrics-server would measure (`metrics`).

pub mod activity;
pub mod control;
pub mod cronjobs;
pub mod daemonsets;
pub mod dataset;
pub mod deployments;
pub mod disruption;
pub mod endpointslices;
pub mod jobs;
pub mod kubelet;
pub mod manager;
pub mod metrics;
pub mod policy;
pub mod recorder;
pub mod revisions;
pub mod running;
pub mod scheduler;
pub mod statefulsets;
pub mod workloads;
