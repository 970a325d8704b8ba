"""HTTP plumbing that knows nothing of speech: the error tree and its one JSON shape,
middleware, CORS origins, key authentication, JSON depth, socket buffers."""
