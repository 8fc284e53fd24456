# TFB test "aot": the same server compiled ahead of time (Native AOT): no JIT, no tiering, smaller image.
# Build context and conventions as in platformbenchmarks.dockerfile.
FROM mcr.microsoft.com/dotnet/sdk:10.0.400 AS build
# The ILCompiler links the native executable with clang and needs zlib's headers.
RUN apt-get update && apt-get install -y --no-install-recommends clang zlib1g-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /source
COPY global.json Directory.Build.props Directory.Packages.props .editorconfig ./
COPY src/PlatformBenchmarks/ src/PlatformBenchmarks/
COPY src/PlatformBenchmarks.Http/ src/PlatformBenchmarks.Http/
COPY src/PlatformBenchmarks.Transport/ src/PlatformBenchmarks.Transport/
# DebugType=none: no debug symbols in the image, neither native (the ILCompiler then emits none, where it would
# otherwise leave a .dbg twice the binary's size beside it) nor the transport project's .pdb.
RUN dotnet publish src/PlatformBenchmarks/PlatformBenchmarks.csproj -c Release -p:PublishAot=true -p:DebugType=none -o /app

# runtime-deps: the native libraries a self-contained executable needs, without the .NET runtime itself.
FROM mcr.microsoft.com/dotnet/runtime-deps:10.0 AS runtime
WORKDIR /app
COPY --from=build /app ./
ENV DOTNET_GCDynamicAdaptationMode=0
ENV ConnectionString="Host=tfb-database;Port=5432;Database=hello_world;Username=benchmarkdbuser;Password=benchmarkdbpass;SSL Mode=Disable"
EXPOSE 8080
ENTRYPOINT ["./PlatformBenchmarks", "--urls", "http://*:8080"]
