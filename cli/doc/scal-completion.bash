# SPDX-License-Identifier: BSD-3-Clause
# bash completion for scal: commands from `scal --help`, a command's options from
# `scal COMMAND --help` (the help texts are the one list of both), file names otherwise.
_scal() {
    local cur=${COMP_WORDS[COMP_CWORD]} scal=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]}
    if [[ $COMP_CWORD -eq 1 ]]; then
        local commands
        commands=$("$scal" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
        mapfile -t COMPREPLY < <(compgen -W "$commands --help --version -V" -- "$cur")
        return
    fi
    if [[ $cur == -* ]]; then
        local options
        options=$("$scal" "$cmd" --help 2>/dev/null | grep -oE '(^|[][ ,|(])--?[A-Za-z][-A-Za-z0-9]*' |
            sed 's/^[][ ,|(]*//' | sort -u)
        mapfile -t COMPREPLY < <(compgen -W "$options --version -V" -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -o bashdefault -F _scal scal
