# switchboard: one image for the web and worker roles. Node runs the TypeScript sources directly.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE 3000
ENTRYPOINT ["node", "bin/switchboard.js"]
CMD ["start", "--role", "all"]
