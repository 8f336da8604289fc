# bash completion for ssim (installed as share/bash-completion/completions/ssim)
_ssim() {
  local cur prev verb
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  verb=${COMP_WORDS[1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "validate run status start stop logs metrics env report list dashboard doctor --version --help" -- "$cur"))
    return
  fi
  case "$prev" in
    --launcher) COMPREPLY=($(compgen -W "auto local slurm pbs lsf" -- "$cur")); return ;;
    --max-members|--watch|--port|--bind) return ;;
    --filter) COMPREPLY=($(compgen -W "new pending running completed failed cancelled unknown" -- "$cur")); return ;;
    -o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  local opts=""
  case "$verb" in
    run) opts="--dry-run --detach --batch --overwrite --resume --only --open --launcher --json --events --max-members --help" ;;
    validate) opts="--max-members --json --document --open --help" ;;
    status) opts="--json --watch --filter --format --sort --summary --help" ;;
    logs) opts="--stderr --follow --json --help" ;;
    env) opts="--json --help" ;;
    report) opts="--output --help" ;;
    metrics) opts="--json --csv --output --archive --help" ;;
    list) opts="--json --help" ;;
    dashboard) opts="--port --bind --help" ;;
    stop) opts="--json --no-save --help" ;;
    start) opts="--json --help" ;;
    doctor) opts="--help" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _ssim ssim
