# TFB test "default": the server on the JIT runtime (CoreCLR with tiered PGO).
# Build context: a folder laid out like this repository's root (the repository itself, or the TFB framework
# folder that docker/tfb/export.sh fills). docker/verify-publish.sh runs this file's COPY and publish steps
# outside Docker, so keep every build step a COPY or a `RUN dotnet publish` line.
# The SDK global.json names, so an image builds with the compiler and analyzers the repository's warnings-as-errors
# build was checked with; a floating sdk:10.0 tag would move to a new feature band unseen.
FROM mcr.microsoft.com/dotnet/sdk:10.0.400 AS build
WORKDIR /source
COPY global.json Directory.Build.props Directory.Packages.props .editorconfig ./
COPY src/PlatformBenchmarks/ src/PlatformBenchmarks/
COPY src/PlatformBenchmarks.Http/ src/PlatformBenchmarks.Http/
COPY src/PlatformBenchmarks.Transport/ src/PlatformBenchmarks.Transport/
# DebugType=none: no .pdb files in the image (a crash's stack trace then names methods without line numbers).
RUN dotnet publish src/PlatformBenchmarks/PlatformBenchmarks.csproj -c Release -p:DebugType=none -o /app

FROM mcr.microsoft.com/dotnet/aspnet:10.0 AS runtime
WORKDIR /app
COPY --from=build /app ./
# Server GC without dynamic adaptation (DATAS): the project file sets the same, the variable makes it visible
# and survives a runtimeconfig edit. TFB runs no other process in this container, so one heap per core is right.
ENV DOTNET_GCDynamicAdaptationMode=0
# TFB's database container (docs/tfb-rules.md §8); only the /db, /queries, /updates, /fortunes and /cached-worlds routes use it.
ENV ConnectionString="Host=tfb-database;Port=5432;Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass;SSL Mode=Disable"
EXPOSE 8080
ENTRYPOINT ["dotnet", "PlatformBenchmarks.dll", "--urls", "http://*:8080"]
