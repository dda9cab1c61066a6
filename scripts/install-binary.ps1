# install-binary.ps1 is scripts/install-binary.sh for Windows without a
# POSIX shell: it downloads coder-nvim.exe for this machine and the
# plugin's VERSION from the project's release, checks it against the
# release's SHA256SUMS and moves it into bin\ only when it matched; when the
# download fails and Go of go.mod's version is here, it builds from source.
# CODER_NVIM_RELEASE_URL and CODER_NVIM_BUILD_FROM_SOURCE=1 work as there.
$ErrorActionPreference = 'Stop'
$ReleaseUrl = 'https://github.com/coder-nvim/coder-nvim/releases/download'

$root = Split-Path -Parent $PSScriptRoot
$bin = Join-Path $root 'bin'
$version = (Get-Content (Join-Path $root 'VERSION') -TotalCount 1).Trim()
$arch = if ($env:PROCESSOR_ARCHITECTURE -eq 'ARM64') { 'arm64' } else { 'amd64' }
$name = "coder-nvim-$version-windows-$arch.exe"
$target = Join-Path $bin 'coder-nvim.exe'
function Say($msg) { Write-Output "coder-nvim install: $msg" }

New-Item -ItemType Directory -Force -Path $bin | Out-Null
$tmp = Join-Path $bin ('.install.' + [guid]::NewGuid().ToString('N'))
New-Item -ItemType Directory -Path $tmp | Out-Null
try {
	$needGo = (Select-String -Path (Join-Path $root 'go.mod') -Pattern '^go (\d+)\.(\d+)').Matches[0]
	function GoOk {
		$go = Get-Command go -ErrorAction SilentlyContinue
		if (-not $go) { return $false }
		$v = (& go env GOVERSION) -replace '^go', ''
		$p = $v.Split('.')
		$have = [int]$p[0] * 1000 + [int]$p[1]
		$want = [int]$needGo.Groups[1].Value * 1000 + [int]$needGo.Groups[2].Value
		return $have -ge $want
	}
	function Build {
		$gover = & go env GOVERSION
		Say "building from source with $gover"
		$env:CGO_ENABLED = '0'
		Push-Location $root
		try {
			& go build -trimpath -ldflags "-s -w -X main.version=$version" -o (Join-Path $tmp 'coder-nvim.exe') ./cmd/coder-nvim
			if ($LASTEXITCODE -ne 0) { throw 'go build failed; nothing was installed' }
		} finally { Pop-Location }
		Move-Item -Force (Join-Path $tmp 'coder-nvim.exe') $target
		Say "built $version from source with ${gover}: $target"
	}
	if ($env:CODER_NVIM_BUILD_FROM_SOURCE -eq '1') {
		if (-not (GoOk)) { throw "CODER_NVIM_BUILD_FROM_SOURCE=1 needs Go $($needGo.Value.Substring(3)) or newer" }
		Build
		exit 0
	}
	$base = $(if ($env:CODER_NVIM_RELEASE_URL) { $env:CODER_NVIM_RELEASE_URL } else { $ReleaseUrl }) + "/v$version"
	$downloaded = $false
	try {
		Invoke-WebRequest -UseBasicParsing -Uri "$base/SHA256SUMS" -OutFile (Join-Path $tmp 'SHA256SUMS')
		Invoke-WebRequest -UseBasicParsing -Uri "$base/$name" -OutFile (Join-Path $tmp 'coder-nvim.exe')
		$downloaded = $true
	} catch {
		Say "cannot download from ${base}: $($_.Exception.Message)"
	}
	if ($downloaded) {
		$line = Get-Content (Join-Path $tmp 'SHA256SUMS') | Where-Object { ($_ -split '\s+')[1] -in @($name, "*$name") } | Select-Object -First 1
		if (-not $line) { throw "$name is not listed in the release's SHA256SUMS; nothing was installed" }
		$want = ($line -split '\s+')[0].ToLower()
		$got = (Get-FileHash -Algorithm SHA256 (Join-Path $tmp 'coder-nvim.exe')).Hash.ToLower()
		if ($got -ne $want) { throw "checksum mismatch for $name (SHA256SUMS says $want, the download is $got): refused, nothing was installed" }
		Move-Item -Force (Join-Path $tmp 'coder-nvim.exe') $target
		Say "downloaded $version for windows/$arch from $base, checksum ok: $target"
		exit 0
	}
	if (GoOk) { Build; exit 0 }
	throw "no binary installed: the download failed and Go $($needGo.Value.Substring(3)) or newer is not here to build from source. Install Go and run 'go build -o bin\coder-nvim.exe ./cmd/coder-nvim' in $root, or download $name and SHA256SUMS by hand, check the sum and copy it to $target."
} catch {
	[Console]::Error.WriteLine("coder-nvim install: $($_.Exception.Message)")
	exit 1
} finally {
	Remove-Item -Recurse -Force $tmp -ErrorAction SilentlyContinue
}
