package m0.server.http;

/** What a worker tells its app once, at init: its process id and worker index. */
public record AppContext(long pid, int workerIndex) {}
