"""Generation backends, the batched tree decoder, trajectory selection and the HTTP server (`rqrag ask`, `rqrag serve`)."""
