// CloudFront Function (runtime cloudfront-js-2.0), event type "viewer request", for a matome site
// in an S3 bucket behind CloudFront with the bucket's REST endpoint as origin (Origin Access
// Control): folder URLs (/2021/07/20/0800/) get their index.html, as S3 website hosting's index
// document would; a folder URL typed without its slash is redirected to it. Tested by matome's
// tests/it/deploy.rs against every internal link of a built site.
function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.endsWith('/')) {
    request.uri = uri + 'index.html';
  } else if (uri.split('/').pop().indexOf('.') === -1) {
    return {
      statusCode: 301,
      statusDescription: 'Moved Permanently',
      headers: { location: { value: uri + '/' } },
    };
  }
  return request;
}
