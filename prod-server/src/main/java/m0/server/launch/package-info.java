/**
 * The launch contract between the supervisor and its workers, the one package both sides see:
 * what a worker is told on its command line ({@link m0.server.launch.WorkerSpec},
 * {@link m0.server.launch.WorkerOperations}) and what its exit status tells the supervisor
 * ({@link m0.server.launch.ExitCodes}). Neither side imports the other's classes.
 */
package m0.server.launch;
