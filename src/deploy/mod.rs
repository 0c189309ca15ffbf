//! `matome deploy`: publish the built site (public/) to S3-compatible object storage — Amazon
//! S3, Cloudflare R2, Google Cloud Storage (interoperability), MinIO — uploading only what
//! changed.
//!
//! Owns comparing the output folder with the bucket ([`plan`], pure), the order of the work, the
//! objects' headers ([`content_type`], [`cache_control`]) and the deploy manifest
//! (`PREFIX/.matome-deploy.json`). Talking S3 (signing, retries with back-off, credentials from
//! the environment) is the `object_store` crate's. It does not build: `matome build` writes the
//! folder this reads.
//!
//! ## What is uploaded
//!
//! Every file of the output folder is hashed (MD5, which is what S3 and its imitators report as
//! the ETag of an object put in one request). An object is left alone when the bucket holds it
//! with the same size and either an ETag equal to that MD5, or the ETag the last deploy recorded
//! for the same bytes in the manifest (for stores whose ETags are not MD5s, e.g. S3 with SSE-KMS),
//! and, if the manifest knows the object, the same headers. So a first deploy to a bucket that
//! already holds the site uploads nothing, and a deploy that died half-way is finished by the next
//! one: what it uploaded compares equal, the rest is uploaded.
//!
//! ## Order
//!
//! A visitor must never follow a link to an object that is not there yet:
//!
//! 1. new and changed files that are not pages (styles, scripts, images, search shards);
//! 2. new pages (nothing links to them until step 3 or 4);
//! 3. changed pages;
//! 4. the entry points: the home page, the feeds and sitemaps, the search manifest;
//! 5. the deploy manifest;
//! 6. deletions of objects the site no longer has.
//!
//! Each step finishes before the next begins; inside a step at most `[deploy] concurrency`
//! requests run at once (fewer while the bucket throttles: [`throttle`]). A failed object does
//! not stop the others of its step, but the deploy stops after that step, naming every object
//! that failed, so the order above holds.
//!
//! ## What is left alone
//!
//! The listing ([`listing`]) reads the bucket key by key: a key matome never writes (an empty
//! segment as in `news/backup//index.html`, `.` or `..`, a folder marker `dir/`, a control
//! character) is not the site's. It is never uploaded over or deleted, and the deploy names it
//! (the first [`listing::FOREIGN_SHOWN`], then a count) instead of failing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use md5::{Digest, Md5};
use object_store::aws::{AmazonS3, AmazonS3Builder, AmazonS3ConfigKey};
use object_store::client::HttpConnector;
use object_store::path::Path as ObjectPath;
use object_store::{BackoffConfig, ClientOptions, RetryConfig};
use rayon::prelude::*;

use crate::config::{Config, DeploySettings};
use crate::hash::hex;

/// The deploy manifest's name under the prefix.
pub const DEPLOY_MANIFEST: &str = ".matome-deploy.json";
/// Bumped when the manifest's layout changes; another format is ignored (everything compares by
/// ETag then).
const MANIFEST_FORMAT: u32 = 1;

/// What `matome deploy` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct DeployOptions {
    /// The built site (default: public/ in the site root).
    pub output: Option<PathBuf>,
    /// List what would change; change nothing.
    pub dry_run: bool,
    /// A progress bar of the uploads on a terminal (indicatif hides it elsewhere).
    pub progress: bool,
}

pub mod listing;
mod objects;
pub mod plan;
pub mod throttle;
pub use plan::*;

/// Every file of the output folder with its size and MD5 (read in parallel). Temporary files of
/// an interrupted build (`.matome*`) are skipped.
pub fn scan(output: &Path) -> Result<Vec<LocalFile>> {
    let mut paths = Vec::new();
    for entry in walkdir::WalkDir::new(output).sort_by_file_name() {
        let entry = entry.with_context(|| format!("reading {}", output.display()))?;
        if !entry.file_type().is_file() {
            continue;
        }
        if entry.file_name().to_string_lossy().starts_with(".matome") {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(output)
            .expect("under the output folder");
        let rel = rel
            .to_str()
            .with_context(|| {
                format!(
                    "{}: the file name is not UTF-8, so it cannot be an object key",
                    entry.path().display()
                )
            })?
            .replace(std::path::MAIN_SEPARATOR, "/");
        paths.push((entry.into_path(), rel));
    }
    paths
        .into_par_iter()
        .map(|(path, rel)| {
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            Ok(LocalFile {
                rel,
                size: bytes.len() as u64,
                md5: hex(&Md5::digest(&bytes)),
            })
        })
        .collect()
}

/// The variables `object_store` reads credentials from; one of them must be set, or it would
/// wait for an EC2 instance-metadata service that is not there.
const CREDENTIAL_VARS: [&str; 4] = [
    "AWS_ACCESS_KEY_ID",
    "AWS_WEB_IDENTITY_TOKEN_FILE",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
];

/// The store, its listing, and the throttling shared by every request to it.
pub struct Bucket {
    pub store: Arc<AmazonS3>,
    pub lister: listing::Lister,
    pub limiter: Arc<throttle::Limiter>,
}

/// Builds the client for `[deploy]`: credentials and other `AWS_*` settings from the
/// environment, then bucket, region and endpoint from matome.toml; every request goes through
/// the throttling layer ([`throttle`]).
pub fn store(settings: &DeploySettings) -> Result<Bucket> {
    if !CREDENTIAL_VARS
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        bail!(
            "no credentials for {}: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment \
             (in GitHub Actions, repository secrets; for R2, an R2 API token's key pair)",
            settings.url
        );
    }
    // Our TLS is rustls with ring (as for fetching); object_store's reqwest brings no provider.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let limiter = throttle::Limiter::new(settings.concurrency);
    let connector = throttle::ThrottledConnector {
        limiter: Arc::clone(&limiter),
        budget: settings.throttle_wait,
    };
    let options = ClientOptions::new()
        .with_connect_timeout(Duration::from_secs(10))
        .with_timeout(Duration::from_secs(120))
        .with_allow_http(
            settings
                .endpoint
                .as_deref()
                .is_some_and(|e| e.starts_with("http://")),
        );
    let mut b = AmazonS3Builder::from_env()
        .with_bucket_name(&settings.bucket)
        .with_retry(RetryConfig {
            backoff: BackoffConfig {
                init_backoff: Duration::from_millis(200),
                max_backoff: Duration::from_secs(15),
                base: 2.0,
            },
            max_retries: settings.retries,
            // Throttling waits happen below object_store's retries and may take longer.
            retry_timeout: Duration::from_secs(120) + settings.throttle_wait,
        })
        .with_client_options(options.clone())
        .with_http_connector(connector.clone());
    let region = settings
        .region
        .clone()
        .or_else(|| std::env::var("AWS_REGION").ok())
        .or_else(|| std::env::var("AWS_DEFAULT_REGION").ok());
    if let Some(region) = region {
        b = b.with_region(region);
    }
    if let Some(endpoint) = &settings.endpoint {
        b = b
            .with_endpoint(endpoint)
            .with_allow_http(endpoint.starts_with("http://"));
    }
    let config = |k: AmazonS3ConfigKey| b.get_config_value(&k);
    let region = config(AmazonS3ConfigKey::Region).unwrap_or_else(|| "us-east-1".into());
    let endpoint = config(AmazonS3ConfigKey::S3Endpoint).or(config(AmazonS3ConfigKey::Endpoint));
    let virtual_hosted = config(AmazonS3ConfigKey::VirtualHostedStyleRequest)
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let url = listing::bucket_url(
        endpoint.as_deref(),
        virtual_hosted,
        &settings.bucket,
        &region,
    );
    let store = Arc::new(
        b.build()
            .with_context(|| format!("setting up the client for {}", settings.url))?,
    );
    let client = connector
        .connect(&options)
        .with_context(|| format!("setting up the client for {}", settings.url))?;
    Ok(Bucket {
        lister: listing::Lister {
            client,
            store: Arc::clone(&store),
            url,
            region,
        },
        store,
        limiter,
    })
}

fn key(settings: &DeploySettings, rel: &str) -> Result<ObjectPath> {
    let full = if settings.prefix.is_empty() {
        rel.to_string()
    } else {
        format!("{}/{rel}", settings.prefix)
    };
    ObjectPath::parse(&full).with_context(|| {
        format!("`{rel}` cannot be an object key (empty parts or characters S3 keys must avoid)")
    })
}

fn object_url(settings: &DeploySettings, rel: &str) -> String {
    format!("s3://{}/{}", settings.bucket, join(&settings.prefix, rel))
}

fn join(prefix: &str, rel: &str) -> String {
    if prefix.is_empty() {
        rel.to_string()
    } else {
        format!("{prefix}/{rel}")
    }
}

/// Explains the errors a whole deploy cannot get past (a wrong credential, a missing bucket).
pub(crate) fn explain(e: object_store::Error, settings: &DeploySettings) -> anyhow::Error {
    let text = e.to_string();
    let endpoint = settings.endpoint.as_deref().unwrap_or("Amazon S3");
    let why = if matches!(
        e,
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. }
    ) || text.contains("403 Forbidden")
        || text.contains("401 Unauthorized")
        || text.contains("InvalidAccessKeyId")
        || text.contains("SignatureDoesNotMatch")
        || text.contains("AccessDenied")
    {
        format!(
            "{endpoint} refused the credentials: check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY \
             (and that they may list, put and delete objects in bucket `{}`)",
            settings.bucket
        )
    } else if matches!(e, object_store::Error::NotFound { .. }) || text.contains("NoSuchBucket") {
        format!(
            "bucket `{}` does not exist at {endpoint}: create it, or fix `url`, `endpoint` or `region` in matome.toml's [deploy]",
            settings.bucket
        )
    } else {
        return anyhow::anyhow!("{text}");
    };
    // object_store's message already holds its sources: one line, not a repeated chain.
    anyhow::anyhow!("{why}: {text}")
}

/// `matome deploy`: compares the built site with the bucket and uploads, then deletes, what
/// differs.
pub fn deploy(root: &Path, opts: &DeployOptions) -> Result<DeployReport> {
    let config = Config::load(root)?;
    let Some(settings) = config.deploy.clone() else {
        bail!(
            "{}: no [deploy] table: add one with url = \"s3://BUCKET/PREFIX\" (see README, Deploying to object storage)",
            crate::config::config_path(root).display()
        );
    };
    let output = opts
        .output
        .clone()
        .unwrap_or_else(|| root.join(crate::render::OUTPUT_DIR));
    if !output.join("index.html").is_file() {
        bail!(
            "{} holds no built site (no index.html): run `matome build` first",
            output.display()
        );
    }
    // A build rewrites the folder: deploy one that is complete, and keep builds out meanwhile.
    let _lock = crate::fsutil::SiteLock::acquire_or_wait(root)?;
    let started = Instant::now();
    let local = scan(&output)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let bucket = store(&settings)?;
    rt.block_on(run(bucket, settings, &output, local, opts, started))
}

/// The deploy as steps: list the bucket, read the last manifest, ask for the ETags the listing
/// lacks, plan; then (unless a dry run) upload step by step, record the manifest, delete.
async fn run(
    bucket: Bucket,
    settings: DeploySettings,
    output: &Path,
    local: Vec<LocalFile>,
    opts: &DeployOptions,
    started: Instant,
) -> Result<DeployReport> {
    let store = Arc::clone(&bucket.store);
    // The listing: what the bucket holds under the prefix, key by key.
    let listing = bucket.lister.list(&settings).await?;
    let mut remote = listing.objects;
    let manifest = match remote.contains_key(DEPLOY_MANIFEST) {
        false => Manifest::default(),
        true => objects::read_manifest(&store, &settings).await?,
    };
    objects::ask_e_tags(&store, &settings, &local, &mut remote, &manifest).await;
    let plan = plan(&local, &remote, &manifest, &settings);
    let mut report = DeployReport {
        target: settings.url.clone(),
        files: local.len(),
        uploaded_bytes: plan.uploads().map(|u| u.size).sum(),
        plan,
        dry_run: opts.dry_run,
        elapsed: Duration::ZERO,
        foreign: listing.foreign,
        throttle: Default::default(),
    };
    if !opts.dry_run {
        let uploaded =
            objects::upload_steps(&store, &settings, output, &report.plan, opts.progress).await?;
        let next = next_manifest(
            &local,
            &report.plan,
            &remote,
            &manifest,
            &uploaded,
            &settings,
        );
        if next != manifest {
            objects::write_manifest(&store, &settings, &next).await?;
        }
        objects::delete(&store, &settings, &report.plan.deletes).await?;
    }
    report.elapsed = started.elapsed();
    report.throttle = bucket.limiter.stats();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_hashes_files_and_skips_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/index.html"), "hello").unwrap();
        std::fs::write(dir.path().join("a/.matome.x.tmp"), "half").unwrap();
        let files = scan(dir.path()).unwrap();
        assert_eq!(
            files,
            [LocalFile {
                rel: "a/index.html".into(),
                size: 5,
                md5: "5d41402abc4b2a76b9719d911017c592".into(),
            }]
        );
    }
}
