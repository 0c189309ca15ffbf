//! The deploy's requests that read or change objects, one function per step of [`super::run`]:
//! the last manifest, the ETags a listing lacks (HEAD), the uploads step by step, the new
//! manifest, the deletions. Errors name the object; what to do is the plan's ([`super::plan`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use futures_util::StreamExt;
use md5::{Digest, Md5};
use object_store::aws::AmazonS3;
use object_store::path::Path as ObjectPath;
use object_store::{Attribute, Attributes, ObjectStore, ObjectStoreExt, PutOptions, PutPayload};

use super::{
    DEPLOY_MANIFEST, LocalFile, MANIFEST_FORMAT, Manifest, Plan, RemoteObject, Upload, explain,
    hex, key, object_url,
};
use crate::config::DeploySettings;

/// The manifest the last deploy wrote (the bucket lists it); one of another format is ignored
/// with a warning (everything compares by ETag then).
pub async fn read_manifest(store: &AmazonS3, settings: &DeploySettings) -> Result<Manifest> {
    let manifest_key = key(settings, DEPLOY_MANIFEST)?;
    let bytes = async { store.get(&manifest_key).await?.bytes().await }
        .await
        .map_err(|e| explain(e, settings))
        .with_context(|| format!("reading {}", object_url(settings, DEPLOY_MANIFEST)))?;
    Ok(match serde_json::from_slice::<Manifest>(&bytes) {
        Ok(m) if m.format == MANIFEST_FORMAT => m,
        _ => {
            eprintln!(
                "warning: {} is not a manifest this matome reads; comparing by ETag",
                object_url(settings, DEPLOY_MANIFEST)
            );
            Manifest::default()
        }
    })
}

/// A store that lists no ETags: ask for them (HEAD) where the manifest cannot vouch for the
/// bytes, so a bucket that holds the site already (or a half-finished deploy) is not uploaded
/// again.
pub async fn ask_e_tags(
    store: &Arc<AmazonS3>,
    settings: &DeploySettings,
    local: &[LocalFile],
    remote: &mut BTreeMap<String, RemoteObject>,
    manifest: &Manifest,
) {
    let unknown: Vec<&LocalFile> = local
        .iter()
        .filter(|f| {
            remote
                .get(&f.rel)
                .is_some_and(|r| r.e_tag.is_none() && r.size == f.size)
                && manifest.files.get(&f.rel).is_none_or(|m| m.md5 != f.md5)
        })
        .collect();
    let heads: Vec<(String, Option<String>)> =
        futures_util::stream::iter(unknown.into_iter().map(|f| {
            let store = Arc::clone(store);
            async move {
                let e_tag = match key(settings, &f.rel) {
                    Ok(k) => store.head(&k).await.ok().and_then(|m| m.e_tag),
                    Err(_) => None,
                };
                (f.rel.clone(), e_tag)
            }
        }))
        .buffer_unordered(settings.concurrency)
        .collect()
        .await;
    for (rel, e_tag) in heads {
        if let Some(r) = remote.get_mut(&rel) {
            r.e_tag = e_tag;
        }
    }
}

/// Every upload of the plan, a step at a time (a progress bar on a terminal); the ETag the
/// bucket answered per path. A step with a failed object stops the deploy after it, naming
/// every failure.
pub async fn upload_steps(
    store: &Arc<AmazonS3>,
    settings: &DeploySettings,
    output: &Path,
    plan: &Plan,
    progress: bool,
) -> Result<BTreeMap<String, Option<String>>> {
    let bar = if progress {
        let bar = indicatif::ProgressBar::new(plan.uploads().count() as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} uploading [{bar:30}] {pos}/{len} objects {msg}",
            )
            .expect("valid template"),
        );
        bar
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut e_tags: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (step, uploads) in &plan.steps {
        let results: Vec<(String, Result<Option<String>>)> =
            futures_util::stream::iter(uploads.iter().map(|u| {
                let store = Arc::clone(store);
                let bar = &bar;
                async move {
                    let r = upload(&store, settings, output, u).await.with_context(|| {
                        format!(
                            "uploading {} to {}",
                            output.join(&u.rel).display(),
                            object_url(settings, &u.rel)
                        )
                    });
                    bar.inc(1);
                    (u.rel.clone(), r)
                }
            }))
            .buffer_unordered(settings.concurrency)
            .collect()
            .await;
        let mut failed = Vec::new();
        for (rel, r) in results {
            match r {
                Ok(e_tag) => {
                    e_tags.insert(rel, e_tag);
                }
                Err(e) => failed.push(format!("{e:#}")),
            }
        }
        if !failed.is_empty() {
            bail!(
                "{} of {} object(s) of step {step:?} failed (the deploy stopped there, so no page links \
                 to a missing object; run it again to finish):\n  {}",
                failed.len(),
                uploads.len(),
                failed.join("\n  ")
            );
        }
    }
    bar.finish_and_clear();
    Ok(e_tags)
}

async fn upload(
    store: &AmazonS3,
    settings: &DeploySettings,
    output: &Path,
    u: &Upload,
) -> Result<Option<String>> {
    let path = output.join(&u.rel);
    let bytes = tokio::fs::read(&path)
        .await
        .with_context(|| format!("reading {}", path.display()))?;
    if hex(&Md5::digest(&bytes)) != u.md5 {
        bail!(
            "{} changed while deploying (is a build running?): run the deploy again after it",
            path.display()
        );
    }
    let mut attributes = Attributes::new();
    attributes.insert(Attribute::ContentType, u.content_type.into());
    attributes.insert(Attribute::CacheControl, u.cache_control.clone().into());
    let r = store
        .put_opts(
            &key(settings, &u.rel)?,
            PutPayload::from(bytes),
            PutOptions {
                attributes,
                ..Default::default()
            },
        )
        .await
        .map_err(|e| explain(e, settings))?;
    Ok(r.e_tag)
}

/// Uploads the manifest (JSON, never cached).
pub async fn write_manifest(
    store: &AmazonS3,
    settings: &DeploySettings,
    next: &Manifest,
) -> Result<()> {
    let body = serde_json::to_vec(next).expect("the manifest serialises");
    let mut attributes = Attributes::new();
    attributes.insert(Attribute::ContentType, "application/json".into());
    attributes.insert(Attribute::CacheControl, "no-store".into());
    store
        .put_opts(
            &key(settings, DEPLOY_MANIFEST)?,
            PutPayload::from(body),
            PutOptions {
                attributes,
                ..Default::default()
            },
        )
        .await
        .with_context(|| format!("uploading {}", object_url(settings, DEPLOY_MANIFEST)))?;
    Ok(())
}

/// Deletions last: nothing the new pages link to is among them. In batches (S3's
/// DeleteObjects takes up to 1000 keys a request).
pub async fn delete(store: &AmazonS3, settings: &DeploySettings, deletes: &[String]) -> Result<()> {
    let keys: Vec<object_store::Result<ObjectPath>> = deletes
        .iter()
        .map(|rel| {
            key(settings, rel).map_err(|e| object_store::Error::Generic {
                store: "S3",
                source: e.into(),
            })
        })
        .collect();
    let results: Vec<object_store::Result<ObjectPath>> = store
        .delete_stream(futures_util::stream::iter(keys).boxed())
        .collect()
        .await;
    let failed: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.err())
        .map(|e| format!("deleting under {}: {e}", settings.url))
        .collect();
    if !failed.is_empty() {
        bail!(
            "{} of {} deletion(s) failed (run the deploy again to finish):\n  {}",
            failed.len(),
            deletes.len(),
            failed.join("\n  ")
        );
    }
    Ok(())
}
