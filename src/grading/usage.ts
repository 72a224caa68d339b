// The grade command's usage text and usage error, apart from the grader so
// that the CLI can print them without loading it.
export const GRADE_USAGE = `  grade --exercise NN SUBMISSIONS...   grade files, or folders of them (.hip, .json), each in a sandbox
        [--device cpu|gpu]            where the kernels run (default: cpu, the emulator; correctness only)
        [--gpus 0,1,...]              the GPUs to grade on, --jobs workers on each (default: GPU 0)
        [--jobs N]                    submissions at once (on GPUs: a GPU; timed tests take turns) (default 1)
        [--out DIR]                   reports (default: grades/)
        [--secret TEXT]               combined with every test's seed (default: fresh each run)
        [--slurm] [--chunk N]         write a Slurm job array of chunks of N submissions instead
                  [--sbatch "ARGS"]   extra sbatch options (partition, account, time)
  grade merge DIR                     the class reports from a Slurm run's parts
  grade --sandbox                     which sandbox this machine gives submissions`;

/** A mistake on the command line (printed with the usage). */
export class GradeUsageError extends Error {}

